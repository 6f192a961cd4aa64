/* Goodput at the reader's SLO, recomputed in the page (reportgen/page/slo_payload.py writes
   the data). No network, no randomness, no clock in the numbers.

   In ``exact`` mode each request's TTFT / TPOT / E2EL is the float64 (seconds) the goodput
   table compares, and a request is good when it succeeded and v <= threshold / 1000 for
   every threshold given: the counts are those of `reportgen tables --slo` at any threshold.
   In ``bins`` mode (a round beyond the embedding budget) each value is a log-bin index k: it
   lies in (r * g^(k-1), r * g^k] ms, r the metric's default threshold; a request is surely
   good when every bin lies at or below its threshold, surely not when one lies above, and
   undecided when a bin straddles one, so counts are [lo, hi] bounds (equal at the default
   thresholds, whose bin edges are the thresholds). Intervals, capacity and its verdict
   follow reportgen/analyze/goodput.py step by step (same arithmetic, same order). */
(function () {
  'use strict';
  var METRICS = ['ttft', 'tpot', 'e2el'];
  var FILLED = 'filled-by-slo.js';   // figures/distributions.py FILLED_META
  var root = document.documentElement;

  function lang() { return root.getAttribute('data-lang') === 'en' ? 'en' : 'zh'; }

  // The page's one base64 + gunzip unpacker is loader.js's (window.reportUnpack).
  function unpack(b64, Ctor) {
    return window.reportUnpack(b64)
      .then(function (r) { return r.arrayBuffer(); })
      .then(function (buf) { return new Ctor(buf); });
  }

  // int16 codes from their two byte planes; each tier's TTFT codes are stored as
  // differences from the previous request (reportgen/page/slo_payload.py _tier_block)
  function codesOf(bytes, tiers) {
    var n = bytes.length / 2, out = new Int16Array(n);
    for (var i = 0; i < n; i++) out[i] = (bytes[n + i] << 8) | bytes[i];
    tiers.forEach(function (t) {
      var prev = 0;
      for (var r = 0; r < t.n; r++) {
        prev = ((prev + out[t.at + r]) << 16) >> 16;
        out[t.at + r] = prev;
      }
    });
    return out;
  }

  // both languages as data-l spans (the page's CSS shows the active one)
  // float64 from their eight byte planes (slo_payload._float_planes), lowest byte first
  function valuesOf(bytes) {
    var n = bytes.length / 8, out = new Uint8Array(bytes.length);
    for (var b = 0; b < 8; b++) {
      var at = b * n;
      for (var i = 0; i < n; i++) out[8 * i + b] = bytes[at + i];
    }
    return new Float64Array(out.buffer);
  }

  // float64s stored as their shortest decimals m·10^e (slo_payload._decimal_planes): m in
  // eight int64 byte planes, e in one int8 plane (-128: NaN); parseFloat rounds the decimal
  // to the float Python wrote it from
  function decimalsOf(bytes) {
    var n = bytes.length / 9, out = new Float64Array(n);
    for (var i = 0; i < n; i++) {
      var e = (bytes[8 * n + i] << 24) >> 24;
      if (e === -128) { out[i] = NaN; continue; }
      var lo = (bytes[i] | bytes[n + i] << 8 | bytes[2 * n + i] << 16 |
                bytes[3 * n + i] << 24) >>> 0;
      var hi = bytes[4 * n + i] | bytes[5 * n + i] << 8 | bytes[6 * n + i] << 16 |
               bytes[7 * n + i] << 24;
      var m = hi >= -2097152 && hi < 2097152 ? String(hi * 4294967296 + lo)   // |m| < 2^53
        : (BigInt(hi) * BigInt(4294967296) + BigInt(lo)).toString();
      out[i] = parseFloat(m + 'e' + e);
    }
    return out;
  }

  // The exact mode's values (slo_payload._stored_values): per tier TTFT, TPOT, E2EL; TPOT
  // left out and derived here when every request's equals (E2EL - TTFT) / (tokens - 1), 0 for
  // one token (analyze/distributions.tpot_of)
  function exactValues(bytes, D, tokens) {
    var stored = D.encoding === 'decimal' ? decimalsOf(bytes) : valuesOf(bytes);
    if (D.tpot !== 'derived') return stored;
    var out = new Float64Array(D.values_n), at = 0;
    D.tiers.forEach(function (t) {
      var n = t.n;
      for (var r = 0; r < n; r++) {
        var ttft = stored[at + r], e2el = stored[at + n + r], k = tokens[t.tok_at + r];
        out[t.at + r] = ttft;
        out[t.at + 2 * n + r] = e2el;
        out[t.at + n + r] = ttft === -1 ? -1
          : (k > 1 ? (e2el - ttft) / (k - 1) : (k === 1 ? 0 : NaN));
      }
      at += 2 * n;
    });
    return out;
  }

  // int32 token counts from their four byte planes (slo_payload._int_planes); -1: unknown
  function tokensOf(bytes) {
    var n = bytes.length / 4, out = new Uint8Array(bytes.length);
    for (var b = 0; b < 4; b++) {
      var at = b * n;
      for (var i = 0; i < n; i++) out[4 * i + b] = bytes[at + i];
    }
    return new Int32Array(out.buffer);
  }

  function bi(el, text) {
    el.textContent = '';
    ['zh', 'en'].forEach(function (l) {
      var s = document.createElement('span');
      s.setAttribute('data-l', l);
      s.lang = l === 'zh' ? 'zh-CN' : 'en';
      s.textContent = text[l];
      el.appendChild(s);
    });
  }

  function fill(template, slots) {
    var out = {};
    ['zh', 'en'].forEach(function (l) {
      out[l] = template[l].replace(/\{(\w+)\}/g, function (m, k) {
        var v = slots[k];
        return v === undefined ? m : (typeof v === 'object' ? v[l] : String(v));
      });
    });
    return out;
  }

  function num(x, digits) {
    if (x === null || !isFinite(x)) return x === Infinity ? '\u221e' : '\u2014';
    var d = digits === undefined ? (Math.abs(x) >= 100 ? 1 : Math.abs(x) >= 10 ? 2 : 3) : digits;
    var s = x.toFixed(d);
    if (s.indexOf('.') >= 0) s = s.replace(/0+$/, '').replace(/\.$/, '');
    var parts = s.split('.');
    parts[0] = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return parts.join('.');
  }
  function pct(x) { return isFinite(x) ? num(x * 100, 1) + '%' : '\u2014'; }
  function range(lo, hi, show) {
    return lo === hi || (isNaN(lo) && isNaN(hi)) ? show(lo) : show(lo) + '\u2013' + show(hi);
  }

  function cell(tr, text, numeric, value) {
    var td = document.createElement('td');
    if (numeric) td.className = 'num';
    if (typeof text === 'object') bi(td, text); else td.textContent = text;
    if (value !== undefined) td.setAttribute('data-v', JSON.stringify(value));
    tr.appendChild(td);
    return td;
  }

  // goodput.capacity: the last tier at or above the target, interpolated to the next
  function capacity(loads, att, target) {
    var xs = [], as = [];
    for (var i = 0; i < loads.length; i++) if (isFinite(att[i])) { xs.push(loads[i]); as.push(att[i]); }
    var last = -1;
    for (var j = 0; j < as.length; j++) if (as[j] >= target) last = j;
    if (last < 0) return { cap: NaN, status: 'none', lo: NaN, hi: NaN };
    var lo = xs[last], aLo = as[last];
    if (last + 1 >= xs.length || !isFinite(xs[last + 1])) {
      return { cap: lo, status: 'at_least', lo: lo, hi: NaN };
    }
    var hi = xs[last + 1], aHi = as[last + 1];
    return { cap: lo + (aLo - target) / (aLo - aHi) * (hi - lo), status: 'interpolated',
             lo: lo, hi: hi };
  }

  // goodput.capacity_verdict: the point crossing, its interval along the intervals' ends, and
  // 'undecided' when a tier the verdict rests on straddles the target
  function verdict(loads, att, low, high, target) {
    var k = [];
    for (var i = 0; i < loads.length; i++) if (isFinite(att[i])) k.push(i);
    var xs = k.map(function (i) { return loads[i]; });
    var a = k.map(function (i) { return att[i]; });
    var l = k.map(function (i) { return low[i]; });
    var h = k.map(function (i) { return high[i]; });
    var p = capacity(xs, a, target);
    var rests = p.status === 'interpolated' ? [p.lo, p.hi] : p.status === 'at_least' ? [p.lo]
      : xs.length ? [xs[0]] : [];
    var undecided = NaN;
    for (var r = 0; r < rests.length; r++) {
      var j = xs.indexOf(rests[r]);
      if (l[j] < target && target <= h[j]) { undecided = rests[r]; break; }
    }
    return { cap: p.cap, low: capacity(xs, l, target).cap, high: capacity(xs, h, target).cap,
             status: isNaN(undecided) ? p.status : 'undecided', undecided: undecided,
             lo: p.lo, hi: p.hi };
  }

  // goodput.rate_at: a tier rate at the capacity, measured at tier lo or linear to hi
  function rateAt(loads, rates, load, lo, hi) {
    var at = {};
    loads.forEach(function (x, i) { at[x] = rates[i]; });
    if (!(lo in at)) return NaN;
    if (!isFinite(hi) || !(hi in at) || load === lo) return at[lo];
    return at[lo] + (load - lo) / (hi - lo) * (at[hi] - at[lo]);
  }

  // goodput.wilson and goodput.attainment_interval
  function wilson(good, sent, z) {
    if (!(sent > 0)) return [NaN, NaN];
    var p = good / sent, z2 = z * z, denom = 1 + z2 / sent;
    var centre = (p + z2 / (2 * sent)) / denom;
    var half = z / denom * Math.sqrt(p * (1 - p) / sent + z2 / (4 * sent * sent));
    return [Math.max(0, centre - half), Math.min(1, centre + half)];
  }

  function interval(goods, sents, D) {
    var sg = 0, ss = 0, shares = [];
    for (var i = 0; i < goods.length; i++) {
      sg += goods[i]; ss += sents[i];
      if (sents[i] > 0) shares.push(goods[i] / sents[i]);
    }
    var w = wilson(sg, ss, D.z95);
    if (shares.length < 2) return w;
    var k = shares.length, mean = 0, sq = 0;
    shares.forEach(function (x) { mean += x; });
    mean /= k;
    shares.forEach(function (x) { sq += (x - mean) * (x - mean); });
    var t = k - 1 <= D.t975.length ? D.t975[k - 2] : D.z95;
    var half = t * Math.sqrt(sq / (k - 1)) / Math.sqrt(k);
    return [Math.min(w[0], Math.max(0, mean - half)), Math.max(w[1], Math.min(1, mean + half))];
  }

  // goodput.most_capacity: the highest decided capacity, when its interval's low end lies
  // above every other decided configuration's high end
  function leader(results) {
    var decided = results.filter(function (x) {
      return x.v.status === 'interpolated' || x.v.status === 'at_least';
    });
    if (!decided.length) return null;
    var best = decided[0];
    decided.forEach(function (x) { if (x.v.cap > best.v.cap) best = x; });
    for (var i = 0; i < decided.length; i++) {
      var o = decided[i];
      if (o === best) continue;
      var ceiling = o.v.status === 'at_least' ? Infinity : o.v.high;
      if (!(best.v.low > ceiling)) return null;
    }
    return best;
  }

  function Panel(el) {
    this.el = el;
    this.data = null;      // start() reads it (window.reportJson): a large round's is packed
    this.th = {};
    this.filledFor = null;
  }

  Panel.prototype.init = function (data) {
    this.data = data;
    var d = data.defaults;
    METRICS.forEach(function (m) { this.th[m] = d[m]; }, this);
    this.target = d.target;
    this.figEl = document.getElementById(data.fig);
  };

  Panel.prototype.start = function () {
    var self = this;
    if (typeof DecompressionStream === 'undefined') {
      // the page's alert already says this browser cannot unpack the embedded data
      this.el.setAttribute('data-slo-ready', 'unsupported');
      return Promise.resolve();
    }
    return window.reportJson(this.el.querySelector('.slo-data')).then(function (D) {
      self.init(D);
      var exact = D.mode === 'exact';
      return Promise.all([unpack(exact ? D.values : D.codes, Uint8Array),
                          unpack(D.itl, Int32Array), unpack(D.tokens, Uint8Array)]);
    })
      .then(function (arrays) {
        var D = self.data, exact = D.mode === 'exact';
        self.tokens = tokensOf(arrays[2]);
        if (exact) self.values = exactValues(arrays[0], D, self.tokens);
        else self.codes = codesOf(arrays[0], D.tiers);
        self.itl = arrays[1];
        self.el.querySelectorAll('input[data-slo]').forEach(function (input) {
          // only the field edited is read: every other keeps its exact value
          input.addEventListener('input', function () { self.read(input); self.update(); });
        });
        self.el.querySelectorAll('[data-load], [data-load-unit], [data-price]').forEach(function (input) {
          input.addEventListener('input', function () { self.update(); });
          input.addEventListener('change', function () { self.update(); });
        });
        var pick = self.el.querySelector('select[data-slo="tier"]');
        if (pick) pick.addEventListener('change', function () { self.drawCurves(true); });
        self.update();
        self.completeBeforeDraw();
        self.watchFigure();
        self.el.setAttribute('data-slo-ready', 'true');
      });
  };

  // One edited field: a threshold in ms, or the target share in % (read as the decimal it
  // is written as, "99.9" -> 0.999, not 99.9 / 100 rounded twice).
  Panel.prototype.read = function (input) {
    var key = input.getAttribute('data-slo'), text = input.value.trim();
    var v = text === '' ? null : Number(text);
    if (v !== null && !(isFinite(v) && v > 0)) v = null;
    if (key === 'target') {
      if (v !== null && v <= 100) this.target = Number(text + 'e-2');
    } else {
      this.th[key] = v;
    }
  };

  // Good requests of one tier at the current thresholds, per run: {sure: [...], maybe: [...]}
  // (exact mode: the same counts twice)
  Panel.prototype.count = function (t) {
    return this.values ? this.countExact(t) : this.countBins(t);
  };

  Panel.prototype.active = function () {
    var out = [];
    METRICS.forEach(function (m, i) {
      if (this.th[m] !== null && this.th[m] !== undefined) {
        out.push({ i: i, th: this.th[m], limit: this.th[m] / 1000, ref: this.data.refs[m] });
      }
    }, this);
    return out;
  };

  // Token sums of a tier (goodput.cost_table): output and output + input over the completed
  // requests and over the good ones (sure, and maybe in bins mode); NaN once a count summed
  // is unknown (-1), never a short sum
  function Tokens() {
    this.out = 0; this.tot = 0; this.goodOut = [0, 0]; this.goodTot = [0, 0];
  }
  Tokens.prototype.add = function (o, i, good, maybe) {
    var known = o >= 0, tot = known && i >= 0 ? o + i : NaN, out = known ? o : NaN;
    this.out += out; this.tot += tot;
    if (good) { this.goodOut[0] += out; this.goodTot[0] += tot; }
    if (maybe) { this.goodOut[1] += out; this.goodTot[1] += tot; }
  };

  Panel.prototype.countExact = function (t) {
    var vals = this.values, n = t.n, base = t.at, active = this.active();
    var tok = this.tokens, ta = t.tok_at, sums = new Tokens();
    var sure = [], r = 0;
    t.runs.forEach(function (size) {
      var good = 0;
      for (var end = r + size; r < end; r++) {
        if (vals[base + r] < 0) continue;               // failed (stored as -1)
        var ok = true;
        for (var a = 0; a < active.length; a++) {
          // NaN compares false: an unknown value never meets a threshold
          if (!(vals[base + active[a].i * n + r] <= active[a].limit)) { ok = false; break; }
        }
        if (ok) good++;
        sums.add(tok[ta + r], tok[ta + n + r], ok, ok);
      }
      sure.push(good);
    });
    return { sure: sure, maybe: sure, tokens: sums };
  };

  // The bins a threshold decides, once per metric rather than per request: a bin k lies
  // surely at or below th when ref * g^k <= th (k <= sure), surely above when
  // ref * g^(k-1) >= th (k >= above); the same comparisons, found by stepping from a guess.
  function binEdges(ref, th, g) {
    var guess = Math.floor(Math.log(th / ref) / Math.log(g));
    var sure = guess + 2;
    while (!(ref * Math.pow(g, sure) <= th) && sure > -40000) sure--;
    var above = sure + 1;
    while (!(ref * Math.pow(g, above - 1) >= th) && above < 40000) above++;
    return { sure: sure, above: above };
  }

  Panel.prototype.countBins = function (t) {
    var D = this.data, codes = this.codes, g = D.gamma, n = t.n, base = t.at;
    var active = this.active();
    active.forEach(function (a) { a.edges = binEdges(a.ref, a.th, g); });
    var tok = this.tokens, ta = t.tok_at, sums = new Tokens();
    var sure = [], maybe = [], r = 0;
    t.runs.forEach(function (size) {
      var s = 0, m = 0;
      for (var end = r + size; r < end; r++) {
        if (codes[base + r] === D.failed) continue;
        var certain = true, possible = true;
        for (var a = 0; a < active.length; a++) {
          var k = codes[base + active[a].i * n + r];
          if (k === D.zero) continue;
          if (k === D.unknown) { possible = false; break; }
          if (k <= active[a].edges.sure) continue;
          if (k >= active[a].edges.above) { possible = false; break; }
          certain = false;
        }
        if (possible) { m++; if (certain) s++; }
        sums.add(tok[ta + r], tok[ta + n + r], possible && certain, possible);
      }
      sure.push(s); maybe.push(m);
    });
    return { sure: sure, maybe: maybe, tokens: sums };
  };

  function sum(xs) { var s = 0; for (var i = 0; i < xs.length; i++) s += xs[i]; return s; }

  Panel.prototype.update = function () {
    var t0 = performance.now();
    var D = this.data, self = this;
    var rows = D.tiers.map(function (t) {
      var c = self.count(t), lo = sum(c.sure), hi = sum(c.maybe);
      var sents = t.runs;
      var iLo = interval(c.sure, sents, D), iHi = interval(c.maybe, sents, D);
      return { t: t, good: [lo, hi], att: [lo / t.n, hi / t.n], ci: [iLo[0], iHi[1]],
               gp: [lo / t.duration_s, hi / t.duration_s], tokens: c.tokens };
    });
    this.rows = rows;
    this.renderTiers(rows);
    this.renderCost(rows, this.renderCapacity(rows));
    this.drawThresholds();
    var ms = performance.now() - t0;
    this.el.setAttribute('data-update-ms', ms.toFixed(2));
    window.__sloLastUpdateMs = ms;
  };

  Panel.prototype.engineLabel = function (i) { return this.data.engines[i]; };

  Panel.prototype.tierName = function (t) {
    var label = fill(this.data.tier_names, { c: t.c === null ? '\u221e' : num(t.c) });
    var marks = (t.synthetic ? '\u2020' : '') + (t.excluded ? ' \u2021' : '');
    return { zh: label.zh + marks, en: label.en + marks };
  };

  // a tier named in a sentence: its load, or the words for an unbounded rate (never "∞")
  Panel.prototype.tierWords = function (c) {
    if (c === Infinity || c === null) return this.data.text.tier_inf;
    return fill(this.data.tier_names, { c: num(c) });
  };

  Panel.prototype.engineIndex = function (id) {
    for (var i = 0; i < this.data.engines.length; i++) if (this.data.engines[i].id === id) return i;
    return -1;
  };

  Panel.prototype.renderTiers = function (rows) {
    var body = this.el.querySelector('.slo-tiers'), self = this;
    body.textContent = '';
    rows.forEach(function (r) {
      var tr = document.createElement('tr');
      if (r.t.excluded) tr.className = 'has-excluded';
      tr.setAttribute('data-engine', r.t.engine);
      tr.setAttribute('data-c', r.t.c === null ? 'inf' : String(r.t.c));
      var e = self.data.engines[self.engineIndex(r.t.engine)];
      cell(tr, e ? e.label : r.t.engine);
      cell(tr, self.tierName(r.t), true);
      cell(tr, num(r.t.n, 0), true, r.t.n);
      cell(tr, range(r.good[0], r.good[1], function (x) { return num(x, 0); }), true, r.good);
      var a = cell(tr, range(r.att[0], r.att[1], pct), true, r.att);
      if (r.att[0] !== r.att[1]) a.title = self.data.text.undecided[lang()];
      cell(tr, isFinite(r.ci[0]) ? pct(r.ci[0]) + '\u2013' + pct(r.ci[1]) : '', true, r.ci);
      cell(tr, range(r.gp[0], r.gp[1], function (x) { return num(x); }), true, r.gp);
      if (r.t.synthetic) tr.classList.add('synthetic');
      body.appendChild(tr);
    });
  };

  Panel.prototype.renderCapacity = function (rows) {
    var D = this.data, self = this, body = this.el.querySelector('.slo-cap');
    body.textContent = '';
    var result = [];
    D.engines.forEach(function (e) {
      var mine = rows.filter(function (r) { return r.t.engine === e.id && !r.t.excluded; });
      if (!mine.length) return;
      mine.sort(function (x, y) {
        var a = x.t.c === null ? Infinity : x.t.c, b = y.t.c === null ? Infinity : y.t.c;
        return a - b;
      });
      var loads = mine.map(function (r) { return r.t.c === null ? Infinity : r.t.c; });
      var low = mine.map(function (r) { return r.ci[0]; });
      var high = mine.map(function (r) { return r.ci[1]; });
      var lo = verdict(loads, mine.map(function (r) { return r.att[0]; }), low, high, self.target);
      var hi = verdict(loads, mine.map(function (r) { return r.att[1]; }), low, high, self.target);
      // binned values: when the two ends of an undecided count disagree, the round cannot tell
      var v = lo.status === hi.status ? lo
        : { cap: lo.cap, low: lo.low, high: hi.high, status: 'undecided',
            undecided: isNaN(lo.undecided) ? (isNaN(hi.undecided) ? lo.lo : hi.undecided)
              : lo.undecided, lo: lo.lo, hi: lo.hi, binned: true };
      var at = {};
      mine.forEach(function (r) { at[r.t.c === null ? Infinity : r.t.c] = r; });
      // goodput.with_replicas: what one replica carries at capacity (decided verdicts only)
      var decided = v.status === 'interpolated' || v.status === 'at_least';
      var rate = function (key) {
        return decided ? rateAt(loads, mine.map(function (r) { return r.t[key]; }), v.cap,
                                v.lo, v.hi) : NaN;
      };
      result.push({ e: e, v: v, hiCap: hi.cap, at: at, top: loads[loads.length - 1],
                    replica: { 'req/s': rate('req_s'), 'tok/s': rate('out_tok_s') } });
    });
    result.forEach(function (x) {
      var tr = document.createElement('tr'), v = x.v;
      tr.setAttribute('data-engine', x.e.id);
      tr.setAttribute('data-status', v.status);
      cell(tr, x.e.label);
      var text, ci = '';
      if (v.status === 'none') {
        text = D.text.cap_none;
      } else if (v.status === 'at_least') {
        text = fill(D.text.at_least, { tier: self.tierWords(v.lo) });
      } else if (v.status === 'undecided') {
        var r = x.at[v.undecided];
        text = fill(D.text.cap_undecided, {
          tier: self.tierWords(v.undecided),
          ci: r ? pct(r.ci[0]) + '\u2013' + pct(r.ci[1]) : '', target: pct(self.target) });
      } else {
        var shown = range(v.cap, x.hiCap, function (y) { return num(y); });
        text = { zh: shown, en: shown };
      }
      if (v.status === 'interpolated' && isFinite(v.low) && isFinite(v.high)) {
        ci = num(v.low) + '\u2013' + num(v.high);
      }
      cell(tr, text, true, [v.cap, x.hiCap]);
      cell(tr, ci, true, [v.low, v.high]);
      var between = v.status === 'interpolated' ? num(v.lo) + '\u2013' + num(v.hi) : '';
      cell(tr, between, true);
      cell(tr, self.gpusFor(x), true, self.gpusValue(x));
      body.appendChild(tr);
    });
    var line = this.el.querySelector('.slo-best');
    var any = METRICS.some(function (m) { return self.th[m] !== null && self.th[m] !== undefined; });
    var best = leader(result);
    var sentence = this.sentence(result, best);
    if (!any) sentence = { zh: D.text.no_threshold.zh + ' ' + sentence.zh,
                           en: D.text.no_threshold.en + ' ' + sentence.en };
    bi(line, sentence);
    line.setAttribute('data-best', best === null ? '' : best.e.id);
    return result;
  };

  // ------------------------------------------------ cost per million tokens
  // goodput.usd_per_million: GPUs x $/GPU-hour x hours / millions of tokens
  function usdPerMillion(gpus, price, durationS, tokens) {
    if (!(tokens > 0 && durationS > 0 && gpus > 0)) return NaN;
    return gpus * price * durationS / 3600 / (tokens / 1e6);
  }

  Panel.prototype.priceInput = function () {
    var box = this.el.querySelector('[data-price]');
    var v = box ? Number(box.value) : NaN;
    if (!box || box.value.trim() === '' || !(isFinite(v) && v > 0)) return null;
    return v;
  };

  // Per tier: $ per 1M output / total tokens over the completed requests and over the good
  // ones (a range in bins mode: fewer good tokens cost more), energy per good output token;
  // then the cheapest configuration (goodput.cheapest; with a load, goodput.with_cost).
  Panel.prototype.renderCost = function (rows, result) {
    var D = this.data, self = this, T = D.text;
    var wrap = this.el.querySelector('.slo-cost-wrap'), line = this.el.querySelector('.slo-cost-line');
    var body = this.el.querySelector('.slo-cost');
    if (!wrap || !line || !body) return;
    var price = this.priceInput();
    body.textContent = '';
    if (price === null) {
      wrap.hidden = true;
      bi(line, T.cost_hint);
      line.setAttribute('data-cheapest', '');
      return;
    }
    wrap.hidden = false;
    var gpusOf = {};
    D.engines.forEach(function (e) { gpusOf[e.id] = e.gpus || 1; });
    var money = function (x) { return num(x, 2); };
    var candidates = [];
    rows.forEach(function (r) {
      var g = gpusOf[r.t.engine] || 1, d = r.t.duration_s, k = r.tokens;
      var all = [usdPerMillion(g, price, d, k.out), usdPerMillion(g, price, d, k.tot)];
      // the sure good tokens give the higher cost, the maybe ones the lower
      var goodOut = [usdPerMillion(g, price, d, k.goodOut[1]), usdPerMillion(g, price, d, k.goodOut[0])];
      var goodTot = [usdPerMillion(g, price, d, k.goodTot[1]), usdPerMillion(g, price, d, k.goodTot[0])];
      var tr = document.createElement('tr');
      if (r.t.excluded) tr.className = 'has-excluded';
      tr.setAttribute('data-engine', r.t.engine);
      tr.setAttribute('data-c', r.t.c === null ? 'inf' : String(r.t.c));
      var e = D.engines[self.engineIndex(r.t.engine)];
      cell(tr, e ? e.label : r.t.engine);
      cell(tr, self.tierName(r.t), true);
      cell(tr, money(all[0]), true, all[0]);
      cell(tr, money(all[1]), true, all[1]);
      cell(tr, range(goodOut[0], goodOut[1], money), true, goodOut);
      cell(tr, range(goodTot[0], goodTot[1], money), true, goodTot);
      if (D.energy) {
        var j = r.t.energy_j;
        var per = [k.goodOut[1] > 0 ? j / k.goodOut[1] : NaN, k.goodOut[0] > 0 ? j / k.goodOut[0] : NaN];
        cell(tr, isFinite(j) ? range(per[0], per[1], function (x) { return num(x); }) : '', true,
             isFinite(j) ? per : null);
      }
      body.appendChild(tr);
      // goodput.cheapest: tiers whose attainment's 95 % low end meets the target, not
      // excluded from conclusions
      if (!r.t.excluded && r.ci[0] >= self.target && isFinite(goodOut[1])) {
        candidates.push({ e: e, r: r, usd: goodOut[1] });
      }
    });
    var sentence, cheapest = [];
    var L = this.loadInput();
    var loadGpus = (result || []).map(function (x) {
      var g = self.gpusValue(x);
      return { e: x.e, gpus: g === null ? NaN : g.gpus };
    }).filter(function (x) { return isFinite(x.gpus); });
    if (L !== null && loadGpus.length) {
      var fewest = Math.min.apply(null, loadGpus.map(function (x) { return x.gpus; }));
      cheapest = loadGpus.filter(function (x) { return x.gpus === fewest; });
      sentence = fill(T.cost_cheapest_load, { names: names(cheapest), gpus: num(fewest, 0),
                                              usd: money(fewest * price) });
    } else if (candidates.length) {
      var low = Math.min.apply(null, candidates.map(function (x) { return x.usd; }));
      var at = candidates.filter(function (x) { return x.usd === low; });
      var seen = {};
      cheapest = at.filter(function (x) { var k = x.e.id; var s = !seen[k]; seen[k] = true; return s; });
      sentence = cheapest.length > 1
        ? fill(T.cost_cheapest_tie, { names: names(cheapest), usd: money(low) })
        : fill(T.cost_cheapest, { name: cheapest[0].e.label, tier: self.tierWords(at[0].r.t.c),
                                  usd: money(low) });
    } else {
      sentence = T.cost_none;
    }
    if (D.energy) sentence = join([sentence, T.cost_energy]);
    bi(line, sentence);
    line.setAttribute('data-cheapest', cheapest.map(function (x) { return x.e.id; }).join(','));
  };

  // goodput.load_table: ceil(load / what one replica carries) replicas of the configuration
  Panel.prototype.loadInput = function () {
    var box = this.el.querySelector('[data-load]'), unit = this.el.querySelector('[data-load-unit]');
    var v = box ? Number(box.value) : NaN;
    if (!box || box.value.trim() === '' || !(isFinite(v) && v > 0)) return null;
    return { load: v, unit: unit ? unit.value : 'req/s' };
  };

  Panel.prototype.gpusValue = function (x) {
    var L = this.loadInput();
    if (L === null) return null;
    var per = x.replica[L.unit];
    if (!(isFinite(per) && per > 0)) return null;
    var replicas = Math.ceil(L.load / per);
    return { replicas: replicas, gpus: replicas * (x.e.gpus || 1), per_replica: per,
             bound: x.v.status === 'at_least' ? 'at_most' : 'exact' };
  };

  Panel.prototype.gpusFor = function (x) {
    var g = this.gpusValue(x);
    if (g === null) return '';
    var T = this.data.text;
    return fill(g.bound === 'at_most' ? T.gpus_at_most : T.gpus_for,
                { gpus: num(g.gpus, 0), replicas: num(g.replicas, 0), per: num(x.e.gpus || 1, 0) });
  };

  function names(list, sep) {
    return { zh: list.map(function (x) { return x.e.label.zh; }).join('\u3001'),
             en: list.map(function (x) { return x.e.label.en; }).join(sep || ', ') };
  }

  function join(parts) {
    return { zh: parts.map(function (p) { return p.zh; }).join(''),
             en: parts.map(function (p) { return p.en; }).join(' ') };
  }

  // What the capacity table says, in one or more sentences that agree with it: a leader only
  // when its interval clears every other; "every tier" when all decided ones pass the
  // highest tier tested; the configurations the round cannot tell about; none only when no
  // configuration reaches the target at any tier.
  Panel.prototype.sentence = function (result, best) {
    var T = this.data.text, self = this, parts = [];
    var of = function (s) { return result.filter(function (x) { return x.v.status === s; }); };
    var decided = of('interpolated').concat(of('at_least'));
    var undecided = of('undecided'), none = of('none');
    if (!result.length) return T.best_none;
    if (decided.length) {
      if (best !== null && best.v.status === 'at_least') {
        parts.push(fill(T.best_at_least, { name: best.e.label, tier: self.tierWords(best.v.lo) }));
      } else if (best !== null) {
        parts.push(fill(T.best, { name: best.e.label, load: num(best.v.cap),
                                  low: num(best.v.low), high: num(best.v.high) }));
      } else if (!of('interpolated').length) {
        parts.push(fill(T.every_tier, { names: names(decided) }));
      } else {
        parts.push(fill(T.on_par, { names: names(decided) }));
      }
    }
    if (undecided.length) parts.push(fill(T.cannot_tell, { names: names(undecided) }));
    if (none.length === result.length) return T.best_none;
    if (none.length) parts.push(fill(T.some_none, { names: names(none) }));
    return join(parts);
  };

  // ---------------------------------------------------------------- the ECDF figure

  Panel.prototype.shapes = function () {
    var out = [], self = this;
    METRICS.forEach(function (m, i) {
      var v = self.th[m];
      if (v === null || v === undefined) return;
      var n = i === 0 ? '' : String(i + 1);
      out.push({ type: 'line', xref: 'x' + n, yref: 'y' + n + ' domain', x0: v, x1: v,
                 y0: 0, y1: 1, line: { color: '#dc2626', width: 1.5, dash: 'dash' } });
    });
    return out;
  };

  Panel.prototype.drawn = function () {
    return !!(window.Plotly && this.figEl && this.figEl._fullLayout && this.figEl.data);
  };

  Panel.prototype.drawThresholds = function () {
    if (this.drawn()) window.Plotly.relayout(this.figEl, { shapes: this.shapes() });
  };

  Panel.prototype.selectedTier = function () {
    var pick = this.el.querySelector('select[data-slo="tier"]');
    if (!pick || !pick.value) return null;
    return pick.value === 'inf' ? null : Number(pick.value);
  };

  // ECDF points (x = each bin's representative value, y = share at or below it)
  Panel.prototype.curve = function (t, i) {
    var D = this.data, g = D.gamma, ref = D.refs[METRICS[i]], codes = this.codes;
    var vals = this.values, lg = Math.log(g);
    var counts = {}, total = 0;
    for (var r = 0; r < t.n; r++) {
      var k;
      if (vals) {
        // exact values drawn in the bins the figure always used (±1 %)
        var v = vals[t.at + i * t.n + r];
        if (!(v > 0)) continue;                           // failed, unknown or 0
        if (vals[t.at + r] < 0) continue;
        k = Math.ceil(Math.log(v * 1000 / ref) / lg);
      } else {
        k = codes[t.at + i * t.n + r];
      }
      if (k === D.failed || k === D.unknown || k === D.zero) continue;
      counts[k] = (counts[k] || 0) + 1;
      total++;
    }
    return this.points(counts, total, ref, g, 0);
  };

  Panel.prototype.itlCurve = function (t) {
    var D = this.data, counts = {}, total = 0, zeros = 0;
    for (var j = 0; j < t.itl_bins; j++) {
      var k = this.itl[t.itl_at + 2 * j], c = this.itl[t.itl_at + 2 * j + 1];
      total += c;
      if (k === D.zero) zeros += c; else counts[k] = c;
    }
    return this.points(counts, total, 1.0, D.gamma, zeros);
  };

  Panel.prototype.points = function (counts, total, ref, g, below) {
    var keys = Object.keys(counts).map(Number).sort(function (a, b) { return a - b; });
    var x = [], y = [], cum = below;
    // start at the first bin's lower edge, so a curve of one bin still shows its step
    if (keys.length) { x.push(ref * Math.pow(g, keys[0] - 1)); y.push(below / total); }
    keys.forEach(function (k) {
      cum += counts[k];
      x.push(2 * ref * Math.pow(g, k) / (g + 1));
      y.push(cum / total);
    });
    return [x, y];
  };

  // The restyle that fills the curves of the selected tier, or null when they are there.
  Panel.prototype.curves = function (force) {
    if (!this.drawn()) return null;
    if (!force && this.filledFor === this.fillKey() && this.figEl.data.some(function (t) {
      return t.meta && t.x && t.x.length;
    })) return null;
    return this.fill(this.figEl.data);
  };

  // the tier shown, and the language the merged curves' hover names are in
  Panel.prototype.fillKey = function () { return String(this.selectedTier()) + ':' + lang(); };

  // The curves of the selected tier: {data: {x, y[, hovertext]}, traces} (restyle's
  // arguments) for the figure's traces. One trace per configuration and panel (4 × E, in
  // configuration order), or, with many configurations (figures/distributions.py
  // _merged_curves), traces whose meta is [FILLED, panel, configuration ids…]: their
  // curves one after the other, a gap between two, each point's hover naming its own.
  Panel.prototype.fill = function (traces) {
    var c = this.selectedTier(), D = this.data, self = this;
    var xs = [], ys = [], texts = [], idx = [], at = {}, labels = {}, merged = false;
    D.tiers.forEach(function (t) { if (t.c === c) at[t.engine] = t; });
    D.engines.forEach(function (e) { labels[e.id] = e.plabel[lang()]; });
    function points(id, i) {
      var t = at[id];
      return t === undefined ? [[], []] : i < 3 ? self.curve(t, i) : self.itlCurve(t);
    }
    (traces || []).forEach(function (tr, j) {
      var m = tr.meta;
      if (!Array.isArray(m) || m[0] !== FILLED) return;
      merged = true;
      var x = [], y = [], h = [];
      m.slice(2).forEach(function (id) {
        var p = points(id, m[1]);
        if (x.length && p[0].length) { x.push(null); y.push(null); h.push(''); }
        for (var q = 0; q < p[0].length; q++) {
          x.push(p[0][q]); y.push(p[1][q]); h.push(labels[id]);
        }
      });
      xs.push(x); ys.push(y); texts.push(h); idx.push(j);
    });
    if (!merged) {
      var E = D.engines.length;
      D.engines.forEach(function (e, ei) {
        for (var i = 0; i < 4; i++) {
          var p = points(e.id, i);
          xs.push(p[0]); ys.push(p[1]); idx.push(i * E + ei);
        }
      });
    }
    this.filledFor = this.fillKey();
    var data = { x: xs, y: ys };
    if (merged) data.hovertext = texts;
    return { data: data, traces: idx };
  };

  Panel.prototype.drawCurves = function (force) {
    var fill = this.curves(force);
    if (fill) window.Plotly.restyle(this.figEl, fill.data, fill.traces);
  };

  // Before app.js first draws the figure, its curves and threshold lines are put in it, so
  // it is drawn once, complete (not drawn empty, then redrawn by watchFigure).
  Panel.prototype.completeBeforeDraw = function () {
    var self = this;
    document.addEventListener('report:figure-draw', function (e) {
      if (e.detail.id !== self.data.fig) return;
      var fig = e.detail.fig, fill = self.fill(fig.data);
      fill.traces.forEach(function (t, j) {
        fig.data[t].x = fill.data.x[j];
        fig.data[t].y = fill.data.y[j];
        if (fill.data.hovertext) fig.data[t].hovertext = fill.data.hovertext[j];
      });
      fig.layout.shapes = self.shapes();
      self.complete = true;
    });
  };

  Panel.prototype.watchFigure = function () {
    var self = this, hooked = false;
    function check() {
      if (!self.drawn()) return;
      if (!hooked && self.figEl.on) {
        hooked = true;
        // a redraw (language switch, lazy drawing) keeps the curves and the current lines
        self.figEl.on('plotly_afterplot', function () { self.drawCurves(false); });
      }
      if (self.complete) { clearInterval(timer); return; }   // drawn with both
      // curves and threshold lines in one redraw of the figure, not two
      var fill = self.curves(false), shapes = { shapes: self.shapes() };
      if (fill) window.Plotly.update(self.figEl, fill.data, shapes, fill.traces);
      else window.Plotly.relayout(self.figEl, shapes);
      clearInterval(timer);
    }
    var timer = setInterval(check, 100);
    check();
  };

  var panels = [];
  document.querySelectorAll('.slo').forEach(function (el) {
    if (!el.querySelector('.slo-data')) return;
    var p = new Panel(el);
    panels.push(p);
    p.start().catch(function (err) {
      console.error('slo: the per-request data could not be read', err);
      el.setAttribute('data-slo-ready', 'error');
    });
  });
  window.reportSloPanels = panels;

  // ------------------------------------------------ engines at the same per-user speed
  // pareto.at_speed step by step: along the curve in load order, the highest tok/s per GPU
  // at which per-user speed is still >= s (a point, or a segment crossing s, interpolated)
  function atSpeed(points, speed) {
    var pts = points.map(function (p) { return [p[0] === null ? Infinity : p[0], p[1], p[2]]; });
    pts.sort(function (a, b) { return a[0] - b[0]; });
    var best = -Infinity, status = 'not_reached', lastLo = NaN;
    for (var i = 0; i < pts.length; i++) {
      if (pts[i][1] >= speed && pts[i][2] > best) {
        best = pts[i][2]; status = 'measured'; lastLo = pts[i][0];
      }
      if (i + 1 < pts.length && (pts[i][1] - speed) * (pts[i + 1][1] - speed) < 0) {
        var t = (pts[i][1] - speed) / (pts[i][1] - pts[i + 1][1]);
        var y = pts[i][2] + t * (pts[i + 1][2] - pts[i][2]);
        if (y > best) { best = y; status = 'interpolated'; lastLo = pts[i][0]; }
      }
    }
    if (status === 'not_reached') return { v: NaN, status: status };
    var last = pts[pts.length - 1];
    if (status === 'measured' && lastLo === last[0] && last[1] > speed) status = 'at_least';
    return { v: best, status: status };
  }

  // pareto.repeat_interval over each repeat's own curve: mean +/- t(0.975, n-1) sd / sqrt(n)
  // of the repeats that reach the speed (n >= 2), the low end at least 0; null otherwise
  function repeatInterval(curves, speed, data) {
    var vals = [];
    curves.forEach(function (pts) {
      var r = atSpeed(pts, speed);
      if (isFinite(r.v)) vals.push(r.v);
    });
    var n = vals.length;
    if (n < 2) return null;
    var mean = 0, sq = 0;
    vals.forEach(function (x) { mean += x; });
    mean /= n;
    vals.forEach(function (x) { sq += (x - mean) * (x - mean); });
    var t = n - 1 <= data.t975.length ? data.t975[n - 2] : data.z95;
    var half = t * Math.sqrt(sq / (n - 1)) / Math.sqrt(n);
    return [Math.max(0, mean - half), mean + half];
  }

  function speedTable(el, data) {
    var input = el.querySelector('input[data-speed]');
    var rows = el.querySelectorAll('tbody tr');
    function update() {
      var speed = Number(input.value);
      var ok = input.value.trim() !== '' && isFinite(speed) && speed > 0;
      data.curves.forEach(function (c, i) {
        var td = rows[i] && rows[i].lastElementChild;
        if (!td) return;
        if (!ok) { td.textContent = ''; td.removeAttribute('data-v'); return; }
        var r = atSpeed(c.points, speed), ci = repeatInterval(c.repeats || [], speed, data);
        if (r.status === 'not_reached') bi(td, data.text.not_reached);
        else {
          td.textContent = (r.status === 'at_least' ? '\u2265 ' : '') + r.v.toFixed(1) +
            (ci ? ' (' + ci[0].toFixed(1) + '\u2013' + ci[1].toFixed(1) + ')' : '');
        }
        td.setAttribute('data-v', JSON.stringify([r.status, isFinite(r.v) ? r.v : null,
                                                  ci ? ci : null]));
      });
    }
    input.addEventListener('input', update);
    el.setAttribute('data-speed-ready', 'true');
  }
  document.querySelectorAll('.speed').forEach(function (el) {
    window.reportJson(el.querySelector('.speed-data'))
      .then(function (data) { speedTable(el, data); })
      .catch(function (err) { console.error('speed: the curves could not be read', err); });
  });
})();
