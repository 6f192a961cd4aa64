"""The opening sections: the setup card, the glossary (with this round's first → last tier
values) and the headline cards."""

from __future__ import annotations

import math

from markupsafe import Markup

from reportgen.analyze.single_stream import lowest_in_flight
from reportgen.page import ranking
from reportgen.page.builder import Builder
from reportgen.page.cells import same, tcell
from reportgen.page.data import num
from reportgen.page.inputs import inferred_table
from reportgen.page.model import (
    Block,
    Card,
    Cards,
    Column,
    Facts,
    Heading,
    PageBlock,
    Para,
    Row,
    Table,
)
from reportgen.reference.clients import METRICS, client
from reportgen.text.bilingual import LANGS, Bi
from reportgen.text.formatting import MISSING, fmt, fmt_g, fmt_latency_ms, is_missing


def setup(b: Builder) -> list[PageBlock]:
    r = b.d.round
    items: list[tuple[Bi, Bi]] = []
    if r.gpu:
        gpu = r.gpu
        if r.gpu_count > 1:
            gpu = f"{fmt_g(r.gpu_count)} × {gpu}"
        items.append((b.t("setup.gpu"), b.t(
            "setup.gpu_value", gpu=gpu, memory=fmt_g(r.memory_gib),
            bandwidth=fmt_g(r.bandwidth_gb_s))))
    if r.model:
        items.append((b.t("setup.model"), same(r.model)))
    for engine in b.d.order:
        facts = b.d.engine_facts(engine)
        parts = [str(k) for k in (facts.version, facts.dtype, facts.quant) if k]
        if facts.gpu_name and not r.gpu:  # GPUs differ by configuration
            parts.append(facts.gpu_name)
        if facts.model and not r.model:   # models differ by configuration
            parts.append(facts.model)
        if num(facts.tensor_parallel) > 1:
            parts.append(f"TP{fmt_g(facts.tensor_parallel)}")
        if facts.commit and facts.commit not in parts:
            parts.insert(1 if parts else 0, facts.commit)
        if parts:   # nothing known about the configuration: no line of dashes
            items.append((b.d.label(engine), same(" · ".join(dict.fromkeys(parts)))))
        settings: list[Bi] = []
        if facts.slots is not None:
            settings.append(b.t("setup.slots", n=fmt_g(facts.slots)))
        if facts.context is not None:
            settings.append(b.t("setup.context", n=fmt_g(facts.context)))
        if facts.prompt_cache in ("off", "on"):
            settings.append(b.t(f"setup.cache_{facts.prompt_cache}"))
        if settings:
            items.append((b.t("setup.engine_settings", engine=b.d.label(engine)),
                          Bi(*(" · ".join(s.get(lang) for s in settings) for lang in LANGS))))
    known_in, known_out = math.isfinite(num(r.input_tokens)), math.isfinite(num(r.output_tokens))
    if known_in or known_out:  # a length no file states is left out, never a dash
        key = "setup.workload_value" if known_in and known_out else \
            "setup.workload_input_only" if known_in else "setup.workload_output_only"
        items.append((b.t("setup.workload"), b.t(
            key, input=fmt_g(r.input_tokens), output=fmt_g(r.output_tokens))))
    concs = r.concurrency or b.d.concurrencies()
    if concs:
        items.append((b.t("setup.tiers"), same(" · ".join(fmt_g(c) for c in concs))))
    names = {e: n for e, n in r.client_names.items() if e in b.d.order}
    if len(set(names.values())) > 1:  # each configuration's client, named
        items.append((b.t("setup.client"), Bi(*(
            Markup(b.ui.raw("setup.clients_separator", lang)).join(
                b.t("clients.value", engine=b.d.label(e), client=names[e]).get(lang)
                for e in b.d.order if e in names) for lang in LANGS))))
    elif r.client:
        items.append((b.t("setup.client"), same(r.client)))
    if r.requests_total is not None and r.failed_total is not None:
        per, n = r.requests_per_engine, len(b.d.order)
        if per is not None and n > 1:
            value = b.t("setup.failed_value_engines", failed=fmt_g(r.failed_total),
                           total=fmt_g(r.requests_total), n=str(n), per=fmt_g(per))
        else:
            value = b.t("setup.failed_value", failed=fmt_g(r.failed_total),
                           total=fmt_g(r.requests_total))
        items.append((b.t("setup.failed"), value))
    if r.driver or r.cuda:
        items.append((b.t("setup.driver"), b.t(
            "setup.driver_value", driver=r.driver or MISSING, cuda=r.cuda or MISSING)))
    if r.date:
        items.append((b.t("setup.date"), same(r.date)))
    return [Facts(items), *inferred_table(b)]


def _ms(value: object, spec: str) -> str:
    text = fmt_latency_ms(value, spec)
    return text if text.endswith(" s") else f"{text} ms"


def glossary(b: Builder) -> list[PageBlock]:
    r = b.d.round
    names = {e: n for e, n in r.client_names.items() if e in b.d.order}
    mixed = len(set(names.values())) > 1
    if mixed:
        lead = b.t("clients.lead", clients=str(r.client))
    elif r.client:
        lead = b.t("glossary.lead", client=r.client)
    else:
        lead = b.t("clients.lead_unknown")
    out: list[PageBlock] = [Para(lead)]
    out.append(Heading(b.t("glossary.pipeline_title")))
    out_tokens = num(r.output_tokens)
    gaps = fmt_g(out_tokens - 1) if math.isfinite(out_tokens) else "n − 1"
    in_tokens = num(r.input_tokens)
    shown_in = fmt_g(in_tokens) if math.isfinite(in_tokens) else "m"  # a symbol, as n − 1
    out.append(Block(b.ui.block("glossary.pipeline", input=shown_in, gaps=gaps), "diagram"))
    metrics = (
        ("ttft", "ttft_p50_ms", ".0f", "ms"), ("itl", "itl_p50_ms", ".2f", "ms"),
        ("itl_p99", "itl_p99_ms", ".1f", "ms"), ("tpot", "tpot_p50_ms", ".2f", "ms"),
        ("step", "step_p50_ms", ".2f", "ms"), ("e2el", "e2el_p50_ms", ".0f", "ms"),
        ("output_tok_s", "output_tok_s", ".1f", "tok/s"),
        ("req_s", "request_req_s", ".2f", "req/s"), ("total_tok_s", "total_tok_s", ".0f", "tok/s"),
        # the page's one interactivity definition (Figure 6, the Pareto view, same-speed table)
        ("per_user_tok_s", "tpot_p50_ms", ".1f", "tok/s"),
        ("span", "duration_s", ".2f", "s"),
    )
    rows = []
    for key, column, spec, unit in metrics:
        ranges = []
        for e in b.d.order:
            own = b.d.rows(e)
            if own.empty or column not in own:
                continue
            values = [r.get(column) for r in b.d.records(e)]   # the rows as dicts, made once
            if key == "per_user_tok_s":   # 1000 ÷ TPOT p50, from the same column
                values = [1000.0 / num(x) if num(x) > 0 else math.nan for x in values]
            known = [x for x in values if math.isfinite(num(x))]
            if not known:   # not in this configuration's files: no "—→—"
                continue
            first, last = known[0], known[-1]
            lo, hi = fmt_latency_ms(first, spec), fmt_latency_ms(last, spec)
            if unit == "ms" and (lo.endswith(" s") or hi.endswith(" s")):
                # 10 s or more reads in seconds: each end with its unit
                ranges.append((b.d.label(e), f"{_ms(first, spec)}→{_ms(last, spec)}"))
            else:
                ranges.append((b.d.label(e), f"{fmt(first, spec)}→{fmt(last, spec)} {unit}"))
        measured = Bi(*("; ".join(f"{lab.get(lang)} {txt}" for lab, txt in ranges)
                        for lang in LANGS))
        rows.append(Row([
            tcell(b.client_column(b.t(f"glossary.{key}.metric"), column), "metric"),
            tcell(b.t(f"glossary.{key}.name")),
            tcell(b.t(f"glossary.{key}.what"), "prose"),
            tcell(measured, "range"),
        ]))
    cols = [Column(b.t(f"glossary.col_{k}")) for k in ("metric", "name", "what", "range")]
    out.append(Table(cols, rows, b.client_caption(b.t("glossary.table_caption"),
                                                  [m[1] for m in metrics]), variant="glossary"))
    if mixed or _own_definitions(b, names):
        out += client_definitions(b, names)
    out.append(Heading(b.t("glossary.confusions_title")))
    out.append(Block(b.ui.block("glossary.confusions")))
    return out


def _own_definitions(b: Builder, names: dict[str, str]) -> bool:
    """One client measured every configuration, and it defines a metric otherwise than the
    Terms above (vLLM's): its own definitions are the ones its figures follow, so they are
    shown too (an inference-perf TPOT ends at the last token, not at the response's end)."""
    ids = {b.d.engine_facts(e).client or "" for e in names}
    if len(ids) != 1 or "" in ids:
        return False
    own, page = client(next(iter(ids))), client("vllm")
    return bool(own.basis) and own.basis != page.basis


def client_definitions(b: Builder, names: dict[str, str]) -> list[PageBlock]:
    """Configurations measured by different clients: each client's definitions, and which
    metrics differ between them."""
    ids = {e: b.d.engine_facts(e).client or "" for e in names}
    rows = []
    for cid in dict.fromkeys(i for i in ids.values() if i):
        c = client(cid)
        configs = [b.d.label(e) for e, i in ids.items() if i == cid]
        unknown = b.t("clients.unknown")
        rows.append(Row([
            tcell(same(c.name)),
            tcell(Bi(*(", ".join(lab.get(lang) for lab in configs) for lang in LANGS))),
            *(tcell(c.definitions.get(m, unknown), "prose") for m in METRICS),
            tcell(same(c.source or MISSING)),
        ]))
    cols = [Column(b.t(f"clients.col_{k}"))
            for k in ("client", "configs", "ttft", "itl", "tpot", "source")]
    differ = b.d.round.clients_differ
    own = set(ids.values())
    if len(own) == 1:   # one client, defining some metric otherwise than the Terms (vLLM)
        c, page = client(next(iter(own))), client("vllm")
        apart = [m for m in METRICS if c.basis.get(m) != page.basis.get(m)]
        note = b.t("clients.own", client=c.name, metrics=" / ".join(m.upper() for m in apart))
    elif differ:
        note = b.t("clients.differ", metrics=" / ".join(m.upper() for m in differ))
    else:
        note = b.t("clients.same")
    return [Heading(b.t("clients.title")), Table(cols, rows, note, variant="glossary")]


def step_absent(b: Builder) -> Card:
    """The single-stream card of a round without a single-stream tier: why it is absent."""
    d = b.d
    step = "step_p50_ms" if "step_p50_ms" in d.tiers else "itl_p50_ms"
    if step not in d.tiers or not d.tiers[step].map(lambda x: math.isfinite(num(x))).any():
        sub = b.with_hint(b.t("every.step_absent_none"))
    else:
        # the view's lowest tier, whichever configuration ran it: "the lowest rate" is the
        # lowest any configuration ran, not the first configuration's only one
        low, flight = lowest_in_flight(d.tiers, d.round.axis)
        # "the lowest" only where there is more than one tier to be lowest among
        only = "_only" if d.tiers["concurrency"].nunique() == 1 else ""
        if b.rate_axis and not math.isfinite(flight):
            sub = b.t(f"every.step_absent_unknown{only}", c=fmt_g(low))
        else:
            sub = b.t(f"every.step_absent_sub{only}", c=fmt_g(low), n=fmt(flight, ".1f"))
    return Card(b.t("every.step_absent_label"), b.t("every.step_absent_value"), sub)


def headline(b: Builder) -> list[PageBlock]:
    d = b.d
    cards: list[Card] = []
    if d.pair:
        ea, eb = d.pair
        # a crossing is a ranking change only when a lead beyond the noise shows on each side
        # (analyze.findings, analyze.claims); else the curves meet within the noise
        par = d.v("findings.crossover_claim") == "par"
        if num(d.v("crossover.count")) > 0 and par:
            cards.append(Card(
                b.t("headline.cross_none_label"),
                b.t("headline.cross_par_value", c=fmt(d.v("crossover.concurrency"), ".1f")),
                b.t("headline.cross_par_sub", a=d.label(ea), b=d.label(eb),
                    lo=fmt_g(d.v("crossover.lower_tier")),
                    hi=fmt_g(d.v("crossover.upper_tier")),
                    rlo=fmt(d.v("crossover.ratio_lower"), ".3f"),
                    rhi=fmt(d.v("crossover.ratio_upper"), ".3f"),
                    noise=fmt(d.v("findings.crossover_noise"), "pct")), "accent"))
        elif num(d.v("crossover.count")) > 0:
            low, high = num(d.v("crossover.range_low")), num(d.v("crossover.range_high"))
            value = b.t("headline.cross_value", c=fmt(d.v("crossover.concurrency"), ".1f"))
            if math.isfinite(low) and math.isfinite(high):
                value = b.t("headline.cross_value_range",
                               c=fmt(d.v("crossover.concurrency"), ".1f"),
                               lo=fmt(low, ".1f"), hi=fmt(high, ".1f"))
            cards.append(Card(
                b.t("headline.cross_label"), value,
                b.t("headline.cross_sub", a=d.label(ea), b=d.label(eb),
                       lo=fmt_g(d.v("crossover.lower_tier")),
                       hi=fmt_g(d.v("crossover.upper_tier")),
                       rlo=fmt(d.v("crossover.ratio_lower"), ".3f"),
                       rhi=fmt(d.v("crossover.ratio_upper"), ".3f")), "accent"))
        elif ranking.applies(b):   # a one-tier comparison: who leads, not "no crossing"
            card = ranking.leader_card(b)
            cards += [card] if card else []
        elif not math.isnan(num(d.v("crossover.count"))):
            cards.append(Card(b.t("headline.cross_none_label"),
                              b.t("headline.cross_none_value"),
                              b.t("headline.cross_none_sub"), "accent"))
    itl_c1 = {e: num(d.engine(e).get("itl_p50_c1_ms")) for e in d.order}
    finite = {e: v for e, v in itl_c1.items() if math.isfinite(v)}
    if finite:
        focus = min(finite, key=lambda e: finite[e])
        e = d.engine(focus)
        sub_others = b.others(focus, lambda o: itl_c1[o], lambda v: f"{fmt(v, '.2f')} ms")
        if d.pair and focus == d.pair[0] and math.isfinite(num(d.v("step_ratio.measured"))) \
                and math.isfinite(num(d.v("step_ratio.predicted"))):
            sub = b.t("headline.step_sub", others=sub_others,
                         pred=fmt(d.v("step_ratio.predicted"), ".2x"),
                         meas=fmt(d.v("step_ratio.measured"), ".2x"))
        else:
            sub = sub_others
        if focus in b.step_from_tpot():  # the card says what its step is
            basis = b.t("headline.step_tpot")
            sub = Bi(*("; ".join(p for p in (basis.get(lang), sub.get(lang)) if p)
                       for lang in LANGS))
        cards.append(Card(b.t("headline.step_label", engine=d.label(focus)),
                          b.t("headline.step_value", ms=fmt(e.get("itl_p50_c1_ms"), ".2f")),
                          sub))
        if math.isfinite(num(e.get("efficiency_cmax"))):
            cards.append(Card(
                b.t("headline.eff_label", c=fmt_g(e.get("cmax")), engine=d.label(focus)),
                same(fmt(e.get("efficiency_cmax"), "pct")),
                b.t("headline.eff_sub", others=b.others(
                    focus, lambda o: d.engine(o).get("efficiency_cmax"),
                    lambda v: fmt(v, "pct")))))
        if math.isfinite(num(e.get("ms_per_slot"))):
            others = b.others(focus, lambda o: d.engine(o).get("ms_per_slot"),
                              lambda v: f"{fmt(v, '.2f')} ms")
            cards.append(Card(
                b.t("headline.slot_label", engine=d.label(focus)),
                b.t("headline.slot_value", ms=fmt(e.get("ms_per_slot"), ".2f")),
                b.t("headline.slot_sub", others=others, floor=fmt(e.get("floor_ms_per_slot")))
                if math.isfinite(num(e.get("floor_ms_per_slot"))) else others))
    elif d.order and len(d.tiers):
        cards.append(step_absent(b))
    for engine in d.order:
        c = num(d.v(f"throughput_drop.{engine}.concurrency"))
        if is_missing(c):
            continue
        prev = num(d.v(f"throughput_drop.{engine}.previous_concurrency"))
        cards.append(Card(
            b.t("headline.anomaly_label", engine=d.label(engine), c=fmt_g(c)),
            b.t("headline.anomaly_value", tok=fmt(d.tier(engine, c).get("output_tok_s"),
                                                     ".1f")),
            b.t("headline.anomaly_sub" if d.excluded(engine, c)
                   else "headline.drop_sub", prev=fmt_g(prev),
                   prev_tok=fmt(d.tier(engine, prev).get("output_tok_s"), ".1f")),
            "warn"))
        break
    return [Cards(cards)] if cards else []

