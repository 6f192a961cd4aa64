/* Goodput at the reader's SLO, recomputed in the page (reportgen/page/slo_payload.py writes
   the data). No network, no randomness, no clock in the numbers.

   Each request's TTFT / TPOT / E2EL is stored as a log-bin index k: its value lies in
   (r * g^(k-1), r * g^k] ms, r the metric's default threshold. A request is surely good when
   it succeeded and every bin lies at or below its threshold, surely not when one lies above
   (or it failed); a bin across a threshold leaves it undecided, so counts are [lo, hi]
   bounds. At the default thresholds the bin edges are the thresholds: lo = hi, and the
   numbers are those of `reportgen tables --slo`. Capacity and the best configuration follow
   reportgen/analyze/goodput.py step by step (same arithmetic, same order). */
(function () {
  'use strict';
  var METRICS = ['ttft', 'tpot', 'e2el'];
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

  function Panel(el) {
    this.el = el;
    this.data = JSON.parse(el.querySelector('.slo-data').textContent);
    this.th = {};
    var d = this.data.defaults;
    METRICS.forEach(function (m) { this.th[m] = d[m]; }, this);
    this.target = d.target;
    this.figEl = document.getElementById(this.data.fig);
    this.filledFor = null;
  }

  Panel.prototype.start = function () {
    var self = this, D = this.data;
    if (typeof DecompressionStream === 'undefined') {
      // the page's alert already says this browser cannot unpack the embedded data
      this.el.setAttribute('data-slo-ready', 'unsupported');
      return Promise.resolve();
    }
    return Promise.all([unpack(D.codes, Uint8Array), unpack(D.itl, Int32Array)])
      .then(function (arrays) {
        self.codes = codesOf(arrays[0], D.tiers);
        self.itl = arrays[1];
        self.el.querySelectorAll('input[data-slo]').forEach(function (input) {
          input.addEventListener('input', function () { self.read(); self.update(); });
        });
        var pick = self.el.querySelector('select[data-slo="tier"]');
        if (pick) pick.addEventListener('change', function () { self.drawCurves(true); });
        self.update();
        self.completeBeforeDraw();
        self.watchFigure();
        self.el.setAttribute('data-slo-ready', 'true');
      });
  };

  Panel.prototype.read = function () {
    var self = this;
    this.el.querySelectorAll('input[data-slo]').forEach(function (input) {
      var key = input.getAttribute('data-slo');
      var v = input.value === '' ? null : Number(input.value);
      if (v !== null && !(isFinite(v) && v > 0)) v = null;
      if (key === 'target') {
        if (v !== null && v <= 100) self.target = v / 100;
      } else {
        self.th[key] = v;
      }
    });
  };

  // [surely good, possibly good] requests of one tier at the current thresholds
  Panel.prototype.count = function (t) {
    var D = this.data, codes = this.codes, g = D.gamma, n = t.n, base = t.at;
    var active = [];
    METRICS.forEach(function (m, i) {
      if (this.th[m] !== null && this.th[m] !== undefined) {
        active.push({ off: base + i * n, th: this.th[m], ref: D.refs[m] });
      }
    }, this);
    var sure = 0, maybe = 0;
    for (var r = 0; r < n; r++) {
      if (codes[base + r] === D.failed) continue;
      var certain = true, possible = true;
      for (var a = 0; a < active.length; a++) {
        var k = codes[active[a].off + r];
        if (k === D.zero) continue;
        if (k === D.unknown) { possible = false; break; }
        var ref = active[a].ref, th = active[a].th;
        if (ref * Math.pow(g, k) <= th) continue;
        if (ref * Math.pow(g, k - 1) >= th) { possible = false; break; }
        certain = false;
      }
      if (possible) { maybe++; if (certain) sure++; }
    }
    return [sure, maybe];
  };

  Panel.prototype.update = function () {
    var t0 = performance.now();
    var D = this.data, self = this;
    var rows = D.tiers.map(function (t) {
      var c = self.count(t);
      return { t: t, good: c, att: [c[0] / t.n, c[1] / t.n],
               gp: [c[0] / t.duration_s, c[1] / t.duration_s] };
    });
    this.rows = rows;
    this.renderTiers(rows);
    this.renderCapacity(rows);
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
      cell(tr, range(r.gp[0], r.gp[1], function (x) { return num(x); }), true, r.gp);
      if (r.t.synthetic) tr.classList.add('synthetic');
      body.appendChild(tr);
    });
  };

  Panel.prototype.renderCapacity = function (rows) {
    var D = this.data, self = this, body = this.el.querySelector('.slo-cap');
    body.textContent = '';
    var best = null;
    var result = [];
    D.engines.forEach(function (e) {
      var mine = rows.filter(function (r) { return r.t.engine === e.id && !r.t.excluded; });
      if (!mine.length) return;
      mine.sort(function (x, y) {
        var a = x.t.c === null ? Infinity : x.t.c, b = y.t.c === null ? Infinity : y.t.c;
        return a - b;
      });
      var loads = mine.map(function (r) { return r.t.c === null ? Infinity : r.t.c; });
      var lo = capacity(loads, mine.map(function (r) { return r.att[0]; }), self.target);
      var hi = capacity(loads, mine.map(function (r) { return r.att[1]; }), self.target);
      result.push({ e: e, lo: lo, hi: hi });
      if (isFinite(lo.cap) && (best === null || lo.cap > best.lo.cap)) best = result[result.length - 1];
    });
    result.forEach(function (x) {
      var tr = document.createElement('tr');
      tr.setAttribute('data-engine', x.e.id);
      tr.setAttribute('data-status', x.lo.status);
      cell(tr, x.e.label);
      var text;
      if (x.lo.status === 'none' && x.hi.status === 'none') {
        text = D.text.cap_none;
      } else if (x.lo.status === 'at_least') {
        text = fill(D.text.at_least, { load: num(x.lo.cap) });
      } else {
        var shown = range(x.lo.cap, x.hi.cap, function (v) { return num(v); });
        text = { zh: shown, en: shown };
      }
      cell(tr, text, true, [x.lo.cap, x.hi.cap]);
      var between = x.lo.status === 'interpolated' ? num(x.lo.lo) + '\u2013' + num(x.lo.hi) : '';
      cell(tr, between, true);
      body.appendChild(tr);
    });
    var line = this.el.querySelector('.slo-best');
    var any = METRICS.some(function (m) { return self.th[m] !== null && self.th[m] !== undefined; });
    var sentence = best === null ? D.text.best_none
      : fill(D.text.best, { name: best.e.label, load: num(best.lo.cap) });
    if (!any) sentence = { zh: D.text.no_threshold.zh + ' ' + sentence.zh,
                           en: D.text.no_threshold.en + ' ' + sentence.en };
    bi(line, sentence);
    line.setAttribute('data-best', best === null ? '' : best.e.id);
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
    var counts = {}, total = 0;
    for (var r = 0; r < t.n; r++) {
      var k = codes[t.at + i * t.n + r];
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
    var key = String(this.selectedTier());
    if (!force && this.filledFor === key && this.figEl.data.some(function (t) {
      return t.x && t.x.length;
    })) return null;
    return this.fill();
  };

  // The curves of the selected tier: {data: {x, y}, traces} (restyle's arguments).
  Panel.prototype.fill = function () {
    var c = this.selectedTier(), key = String(c);
    var D = this.data, self = this, xs = [], ys = [], idx = [];
    var E = D.engines.length;
    D.engines.forEach(function (e, ei) {
      var t = null;
      D.tiers.forEach(function (tt) { if (tt.engine === e.id && tt.c === c) t = tt; });
      for (var i = 0; i < 4; i++) {
        var pts = t === null ? [[], []] : i < 3 ? self.curve(t, i) : self.itlCurve(t);
        xs.push(pts[0]); ys.push(pts[1]); idx.push(i * E + ei);
      }
    });
    this.filledFor = key;
    return { data: { x: xs, y: ys }, traces: idx };
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
      var fig = e.detail.fig, fill = self.fill();
      fill.traces.forEach(function (t, j) {
        fig.data[t].x = fill.data.x[j];
        fig.data[t].y = fill.data.y[j];
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
})();
