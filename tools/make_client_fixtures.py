"""Run real benchmark clients against tools/stub_server.py and keep their output as fixtures.

    python tools/make_client_fixtures.py [--envs /work/clientenvs] [--only guidellm-0.8.1 …]

Each client is installed in its own virtualenv, ``<envs>/<client>-<version>`` (never in the
project's .venv), e.g. ``python3 -m venv /work/clientenvs/guidellm-0.8.1 &&
/work/clientenvs/guidellm-0.8.1/bin/pip install guidellm==0.8.1``. For every such folder found
this script starts the stub on a free 127.0.0.1 port, runs the client for a short sweep
(concurrency 1, 2, 4 with 8 requests each; GuideLLM also a rate sweep), and copies the files
the client wrote to ``tests/data/clients/<client>-<version>/`` with a README naming the client,
its version, each command and the stub's timing model.

Known limits: GuideLLM 0.4.0 does not import with transformers 5 (``pip install
"transformers<5"`` in its env). GenAI-Perf runs NVIDIA's ``perf_analyzer`` binary, which its
own ``perf-analyzer`` PyPI package does not ship: install ``tritonclient==2.51.0`` (the newest
wheel whose binary needs glibc ≤ 2.34: 2.52 on need 2.38; 2.44 has the OpenAI service kind,
2.47 also ``--request-count``), ``nvidia-cuda-runtime-cu12`` (the binary links libcudart.so.12)
and ``"pandas<3"`` (tritonclient 2.51 pins numpy < 2) in its env. inference-perf needs
Python ≥ 3.12: ``python3.12 -m venv /work/clientenvs/inference-perf-0.7.0``.

No model or tokenizer can be downloaded here, so the clients get a word-level tokenizer built
on the spot (``tokenizer/``: whitespace-split words, vocabulary from the text corpora the
client ships): a token is a whitespace word, which is exactly how the stub counts them.
Every run is bounded: by request count, by the client's own duration limit where it has one,
and by a wall-clock timeout here.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "data" / "clients"
STUB = REPO / "tools" / "stub_server.py"
# the stub's timing model; tests/test_client_consistency.py reads it from each README's JSON
STUB_SETTINGS = {"ttft_ms": 50.0, "gap_ms": 10.0, "gap_per_ms": 5.0, "word": "tok",
                 "model": "stub-model"}
INPUT_TOKENS = 32
OUTPUT_TOKENS = 16
REQUESTS = 8
CONCURRENCIES = (1, 2, 4)
RUN_TIMEOUT_S = 900

TOKENIZER_SCRIPT = r"""
import sys, pathlib, json
from tokenizers import Tokenizer, models, pre_tokenizers, decoders
site, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
pre = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
texts = ["tok the quick brown fox jumps over a lazy dog . , ; : ! ? ' \" - ( )"]
for pkg in ("aiperf", "guidellm", "genai_perf", "inference_perf"):
    for f in sorted((site / pkg).rglob("*.txt")) if (site / pkg).is_dir() else []:
        if f.stat().st_size < 20_000_000:
            texts.append(f.read_text(errors="ignore"))
try:  # GuideLLM's synthetic prompts are Faker's lorem text
    from faker.providers.lorem.en_US import Provider
    texts.append(" ".join(Provider.word_list))
    texts.append(" ".join(w.capitalize() for w in Provider.word_list))
except ImportError:
    pass
words = set()
for text in texts:
    words.update(w for w, _ in pre.pre_tokenize_str(text))
vocab = {"[UNK]": 0}
for w in sorted(words):
    vocab.setdefault(w, len(vocab))
tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
tok.pre_tokenizer = pre
tok.decoder = decoders.WordPiece(prefix="##", cleanup=False)  # joins words with one space
out.mkdir(parents=True, exist_ok=True)
tok.save(str(out / "tokenizer.json"))
(out / "tokenizer_config.json").write_text(json.dumps({
    "tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]",
    "model_max_length": 131072, "clean_up_tokenization_spaces": False}))
(out / "config.json").write_text(json.dumps({"model_type": "llama", "vocab_size": len(vocab)}))
print(len(vocab))
"""


@dataclass
class Env:
    client: str
    version: str
    path: Path

    @property
    def bin(self) -> Path:
        return self.path / "bin"

    @property
    def site(self) -> Path:
        return next((self.path / "lib").glob("python3*/site-packages"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stub:
    def __init__(self) -> None:
        self.port = free_port()
        s = STUB_SETTINGS
        self.proc = subprocess.Popen(
            [sys.executable, str(STUB), "--port", str(self.port), "--ttft-ms", str(s["ttft_ms"]),
             "--gap-ms", str(s["gap_ms"]), "--gap-per-ms", str(s["gap_per_ms"]),
             "--word", str(s["word"]), "--model", str(s["model"]), "--max-seconds", "1800"],
            stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.proc.stdout.readline()  # "stub listening on …"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def run(cmd: list[str], cwd: Path, log: list[str], env: dict[str, str] | None = None) -> None:
    shown = " ".join(cmd)
    print("$", shown, flush=True)
    log.append(shown)
    # no HF_HUB_OFFLINE: AIPerf 0.13 then refuses a local tokenizer folder as a "repo id"
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    proc = subprocess.run(cmd, cwd=cwd, env=full_env, timeout=RUN_TIMEOUT_S,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stdout[-3000:] + "\n" + proc.stderr[-3000:]).strip()
        raise RuntimeError(f"{shown}\nexited {proc.returncode}:\n{tail}")


def build_tokenizer(env: Env, where: Path) -> Path:
    out = where / "tokenizer"
    subprocess.run([str(env.bin / "python"), "-c", TOKENIZER_SCRIPT, str(env.site), str(out)],
                   check=True, capture_output=True, text=True)
    return out


# ---------------------------------------------------------------- one function per client


def guidellm(env: Env, stub: Stub, work: Path, dest: Path, log: list[str]) -> None:
    """A concurrency sweep (JSON and YAML) and a sweep profile (synchronous, throughput, two
    Poisson rates: JSON), in each generation's own command line."""
    tok = build_tokenizer(env, work)
    exe = str(env.bin / "guidellm")
    version = tuple(int(x) for x in env.version.split(".")[:2])
    model = str(STUB_SETTINGS["model"])
    rates = ",".join(map(str, CONCURRENCIES))
    runs: list[tuple[str, list[str], list[str]]] = []  # (folder, profile args, outputs)
    if version >= (0, 8):
        common = ["run", "--backend", f"kind=openai_http,target={stub.url},model={model}",
                  "--constraint", f"kind=max_requests,count={REQUESTS}",
                  "--data", f"kind=synthetic_text,prompt_tokens={INPUT_TOKENS},"
                            f"output_tokens={OUTPUT_TOKENS}",
                  "--tokenizer", f"kind=huggingface_auto,model={tok}",
                  "--disable-console-interactive"]
        runs = [("concurrent", ["--profile", "kind=concurrent", "--override", "profile.streams",
                                rates], ["json", "yaml"]),
                ("sweep", ["--profile", "kind=sweep,sweep_size=4,strategy_type=poisson"],
                 ["json"])]

        def outputs(folder: Path, kinds: list[str]) -> list[str]:
            return [a for k in kinds
                    for a in ("--output", f"kind={k},path={folder / f'benchmarks.{k}'}")]
    else:
        data = f"prompt_tokens={INPUT_TOKENS},output_tokens={OUTPUT_TOKENS}"
        verb = ["benchmark", "run"] if version >= (0, 4) else ["benchmark"]
        kind_flag = "--profile" if version >= (0, 4) else "--rate-type"
        common = [*verb, "--target", stub.url, "--model", model, "--processor", str(tok),
                  "--data", data, "--max-requests", str(REQUESTS)]
        runs = [("concurrent", [kind_flag, "concurrent", "--rate", rates], ["json", "yaml"]),
                ("sweep", [kind_flag, "sweep", "--rate", "4"], ["json"])]

        def outputs(folder: Path, kinds: list[str]) -> list[str]:
            if version >= (0, 4):
                return ["--output-dir", str(folder), "--outputs", ",".join(kinds)]
            return ["--output-path", str(folder / "benchmarks.json")]  # one file per run
    for tag, profile, kinds in runs:
        folder = work / tag
        folder.mkdir()
        run([exe, *common, *profile, *outputs(folder, kinds)], work, log)
        (dest / tag).mkdir(parents=True)
        for f in sorted(folder.iterdir()):
            if f.suffix in (".json", ".yaml"):
                shutil.copy2(f, dest / tag / f.name)


def aiperf(env: Env, stub: Stub, work: Path, dest: Path, log: list[str]) -> None:
    """Concurrency 1, 2, 4 (one sweep command from 0.13 on: per-run folders plus the sweep
    aggregate; one command each before) and a request rate of 4/s."""
    tok = build_tokenizer(env, work)
    version = tuple(int(x) for x in env.version.split(".")[:2])
    common = [str(env.bin / "aiperf"), "profile", "--model", str(STUB_SETTINGS["model"]),
              "--url", stub.url, "--endpoint-type", "chat", "--streaming",
              "--tokenizer", str(tok), "--request-count", str(REQUESTS),
              "--synthetic-input-tokens-mean", str(INPUT_TOKENS),
              "--synthetic-input-tokens-stddev", "0",
              "--output-tokens-mean", str(OUTPUT_TOKENS), "--output-tokens-stddev", "0",
              "--random-seed", "1", "--ui-type", "none"]
    if version >= (0, 13):
        art = work / "concurrency-sweep"
        run([*common, "--concurrency", ",".join(map(str, CONCURRENCIES)),
             "--artifact-dir", str(art)], work, log)
        copy_tree(art, dest / art.name)
    else:
        for c in CONCURRENCIES:
            art = work / f"stub-model-openai-chat-concurrency{c}"
            run([*common, "--concurrency", str(c), "--artifact-dir", str(art)], work, log)
            copy_tree(art, dest / art.name)
    art = work / "stub-model-openai-chat-request_rate4"
    run([*common, "--request-rate", "4", "--artifact-dir", str(art)], work, log)
    copy_tree(art, dest / art.name)


def genai_perf(env: Env, stub: Stub, work: Path, dest: Path, log: list[str]) -> None:
    tok = build_tokenizer(env, work)
    exe = str(env.bin / "genai-perf")
    # tritonclient's perf_analyzer links libcudart.so.12 (loaded, never used without a GPU);
    # the nvidia-cuda-runtime-cu12 wheel in the same env ships it
    cudart = env.site / "nvidia" / "cuda_runtime" / "lib"
    path_env = {"PATH": f"{env.bin}:{os.environ['PATH']}",
                "LD_LIBRARY_PATH": f"{cudart}:{os.environ.get('LD_LIBRARY_PATH', '')}"}
    loads = [(f"c{c}", ["--concurrency", str(c)]) for c in CONCURRENCIES]
    loads.append(("rate4", ["--request-rate", "4"]))
    for tag, load in loads:
        run([exe, "profile", "-m", str(STUB_SETTINGS["model"]), "--url", stub.url.split("//")[1],
             "--endpoint-type", "chat", "--streaming", "--tokenizer", str(tok),
             *load, "--request-count", str(REQUESTS),
             "--warmup-request-count", "0",
             "--synthetic-input-tokens-mean", str(INPUT_TOKENS),
             "--synthetic-input-tokens-stddev", "0",
             "--output-tokens-mean", str(OUTPUT_TOKENS), "--output-tokens-stddev", "0",
             "--random-seed", "1", "--artifact-dir", str(work / "artifacts" / tag)],
            work, log, path_env)
    for f in sorted((work / "artifacts").rglob("*")):
        if f.is_file() and f.suffix in (".json", ".csv") and "inputs" not in f.name:
            target = dest / "artifacts" / f.relative_to(work / "artifacts")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)


INFERENCE_PERF_CONFIG = """\
load:
  type: constant
  stages:
  - rate: 2
    duration: 4
  - rate: 4
    duration: 4
  - rate: 6
    duration: 3
api:
  type: completion
  streaming: true
server:
  type: vllm
  model_name: {model}
  base_url: {url}
  ignore_eos: true
tokenizer:
  pretrained_model_name_or_path: {tokenizer}
data:
  type: random
  input_distribution: {{min: {inp}, max: {inp}, mean: {inp}, std_dev: 0}}
  output_distribution: {{min: {out}, max: {out}, mean: {out}, std_dev: 0}}
report:
  request_lifecycle:
    summary: true
    per_stage: true
    per_request: true
storage:
  local_storage:
    path: {path}
"""


def inference_perf(env: Env, stub: Stub, work: Path, dest: Path, log: list[str]) -> None:
    """Three constant-rate stages (2/s and 4/s for 4 s, 6/s for 3 s) with the per-request
    report, which holds every stage's requests. Needs Python ≥ 3.12 in its env (``python3.12
    -m venv``); its ``chat`` API has no random data generator, so it sends completions."""
    _run_inference_perf(INFERENCE_PERF_CONFIG, env, stub, work, dest, log)


def _run_inference_perf(template: str, env: Env, stub: Stub, work: Path, dest: Path,
                        log: list[str]) -> None:
    """inference-perf run once with the config ``template`` (its fields filled in here)."""
    tok = build_tokenizer(env, work)
    out = work / "results"
    config = work / "config.yml"
    config.write_text(template.format(
        model=STUB_SETTINGS["model"], url=stub.url, tokenizer=tok, inp=INPUT_TOKENS,
        out=OUTPUT_TOKENS, path=out), encoding="utf-8")
    log.append("config.yml: " + " ".join(config.read_text(encoding="utf-8").split()))
    run([str(env.bin / "inference-perf"), "--config_file", str(config)], work, log,
        {"HF_HUB_OFFLINE": "1"})
    copy_tree(out, dest / "results")


INFERENCE_PERF_CONCURRENT = "load:\n  type: concurrent\n  stages:\n" + "".join(
    f"  - num_requests: {REQUESTS * c}\n    concurrency_level: {c}\n" for c in CONCURRENCIES)


def inference_perf_concurrent(env: Env, stub: Stub, work: Path, dest: Path,
                              log: list[str]) -> None:
    """One ``concurrent`` stage per concurrency (1, 2, 4 requests in flight, 8 requests per
    request in flight): the load type whose stages get a placeholder rate (main.py sets it to
    num_requests, so here 8, 16 and 32 "req/s")."""
    constant = INFERENCE_PERF_CONFIG.split("api:", 1)[1]
    _run_inference_perf(INFERENCE_PERF_CONCURRENT + "api:" + constant, env, stub, work, dest,
                        log)


KEEP = (".json", ".jsonl", ".csv", ".yaml")
LEAVE_OUT = ("inputs.json", "outputs.json", "profile_export_raw.jsonl",
             ".aiperf_results_ready.json")


def copy_tree(src: Path, dest: Path) -> None:
    for f in sorted(src.rglob("*")):
        if f.is_file() and f.suffix in KEEP and f.name not in LEAVE_OUT \
                and "logs" not in f.relative_to(src).parts and "server_metrics" not in f.name:
            target = dest / f.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)


CLIENTS = {"guidellm": guidellm, "aiperf": aiperf, "genai-perf": genai_perf,
           "inference-perf": inference_perf}
# a second run of the same env, written to `<client>-<version>-<variant>/`
VARIANTS = {"inference-perf": (("concurrent", inference_perf_concurrent),)}


def find_envs(root: Path, only: list[str]) -> list[Env]:
    envs = []
    for d in sorted(root.iterdir()):
        client, _, version = d.name.rpartition("-")
        if d.is_dir() and client in CLIENTS and (not only or d.name in only) \
                and (d / "bin" / "python").exists():
            envs.append(Env(client, version, d))
    return envs


# packages beside the client that shape what it measures (GenAI-Perf: the perf_analyzer binary)
COMPANIONS = {"genai-perf": ("tritonclient", "nvidia-cuda-runtime-cu12")}


def installed(env: Env, package: str) -> str | None:
    name = package.replace("-", "_")
    found = sorted(env.site.glob(f"{name}-*.dist-info"))
    return found[0].name[len(name) + 1:-len(".dist-info")] if found else None


def readme(env: Env, log: list[str]) -> str:
    cmds = "\n".join(f"    {c}" for c in log)
    pins = [f"{env.client}=={env.version}"] + [
        f"{p}=={v}" for p in COMPANIONS.get(env.client, ()) if (v := installed(env, p))]
    return (
        f"# {env.client} {env.version}: files written by the real client\n\n"
        f"Written by `tools/make_client_fixtures.py` on {time.strftime('%Y-%m-%d')}: "
        f"`pip install {' '.join(pins)}` in its own virtualenv, run against "
        "`tools/stub_server.py` on 127.0.0.1. The client's files were not edited; its "
        "input dataset files (`inputs.json`) and logs are left out.\n\n"
        "Commands (PORT: a free port; TOKENIZER: a word-level tokenizer built by the script, "
        "one token per word or punctuation mark, so each of the stub's words is one token):\n\n"
        f"{cmds}\n\n"
        "Stub timing model: TTFT = ttft_ms; each later token after gap_ms + gap_per_ms × "
        "(requests in flight − 1); one word per token.\n\n"
        f"```json\n{json.dumps({**STUB_SETTINGS, 'input_tokens': INPUT_TOKENS, 'output_tokens': OUTPUT_TOKENS, 'requests': REQUESTS}, indent=1)}\n```\n"  # noqa: E501
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=Path, default=Path("/work/clientenvs"))
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--only", nargs="*", default=[])
    a = p.parse_args()
    failed = []
    jobs = [(env, "", CLIENTS[env.client]) for env in find_envs(a.envs, a.only)]
    jobs += [(env, f"-{name}", how) for env, _, _ in list(jobs)
             for name, how in VARIANTS.get(env.client, ())]
    for env, variant, make in jobs:
        dest = a.out / f"{env.client}-{env.version}{variant}"
        print(f"== {env.client} {env.version}{variant} → {dest}", flush=True)
        stub = Stub()
        log: list[str] = []
        try:
            with tempfile.TemporaryDirectory() as tmp:
                staging = Path(tmp) / "out"
                staging.mkdir()
                make(env, stub, Path(tmp), staging, log)
                if dest.exists():
                    shutil.rmtree(dest)
                shutil.copytree(staging, dest)
                shown = [c.replace(stub.url.split("//")[1], "127.0.0.1:PORT")
                          .replace(tmp, "$WORK").replace(str(env.path), "$ENV")
                         for c in log]
                (dest / "README.md").write_text(readme(env, shown), encoding="utf-8")
        except (RuntimeError, subprocess.SubprocessError) as exc:
            print(f"!! {env.client} {env.version} failed: {exc}", flush=True)
            failed.append(f"{env.client}-{env.version}{variant}")
        finally:
            stub.stop()
    if failed:
        print("failed:", ", ".join(failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
