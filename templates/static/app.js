/* Draw the figures and run the language toggle.
   report-figs = {defaultLang, template, figs: [{id, kind, fig, i18n: {zh, en}}]}: each figure is
   stored in the default language; i18n[lang] = {data, layout, traces} holds only what differs,
   applied before the first draw (other language) or with one Plotly.update per figure. */
(function () {
  'use strict';
  var root = document.documentElement;
  var DATA = JSON.parse(document.getElementById('report-figs').textContent);
  var figLang = null;       // language the drawn figures are in
  var Plotly = null;

  function lang() { return root.getAttribute('data-lang') === 'en' ? 'en' : 'zh'; }

  function config(id) {
    return {
      responsive: true, displaylogo: false, showSendToCloud: false,
      modeBarButtonsToRemove: ['select2d', 'lasso2d'],
      toImageButtonOptions: { format: 'png', filename: id, scale: 2 }
    };
  }

  function setPath(obj, path, value) {
    var parts = path.replace(/\[(\d+)\]/g, '.$1').split('.');
    for (var i = 0; i < parts.length - 1; i++) {
      if (obj[parts[i]] == null) obj[parts[i]] = /^\d+$/.test(parts[i + 1]) ? [] : {};
      obj = obj[parts[i]];
    }
    var last = parts[parts.length - 1];
    if (value === null) delete obj[last]; else obj[last] = value;
  }

  function patchFigure(fig, p) {
    Object.keys(p.layout).forEach(function (k) { setPath(fig.layout, k, p.layout[k]); });
    Object.keys(p.data).forEach(function (k) {
      p.traces.forEach(function (t, j) { setPath(fig.data[t], k, p.data[k][j]); });
    });
  }

  function fail(err) {
    console.error('report: figures could not be drawn', err);
    root.setAttribute('data-rendered', 'error');
    var box = document.getElementById('render-error');
    if (!box) return;
    box.hidden = false;
    if (err && err.code === 'no-decompression-stream') {
      box.querySelector('.alert-nods').hidden = false;
    } else {
      box.querySelector('.alert-detail').textContent = String(err && err.message || err);
    }
  }

  function draw(P) {
    Plotly = P;
    var l = lang();
    return Promise.all(DATA.figs.map(function (f) {
      var el = document.getElementById(f.id);
      if (!el) return null;
      var fig = f.fig;
      fig.layout.template = JSON.parse(JSON.stringify(DATA.template));
      if (l !== DATA.defaultLang) patchFigure(fig, f.i18n[l]);
      var wait = el.querySelector('.plot-wait');
      if (wait) el.removeChild(wait);
      return Plotly.newPlot(el, fig.data, fig.layout, config(f.id));
    })).then(function () {
      figLang = l;
      window.__allRenderedAt = performance.now();
      root.setAttribute('data-rendered', 'true');
      if (lang() !== figLang) return relabel(lang());   // toggled while drawing
    });
  }

  function relabel(l) {
    if (!Plotly || figLang === l) return Promise.resolve();
    var t0 = performance.now();
    figLang = l;
    return Promise.all(DATA.figs.map(function (f) {
      var p = f.i18n[l];
      return Plotly.update(document.getElementById(f.id), p.data, p.layout, p.traces);
    })).then(function () { window.__lastToggleMs = performance.now() - t0; });
  }

  function setLang(l) {
    root.setAttribute('data-lang', l);
    root.lang = l === 'zh' ? 'zh-CN' : 'en';
    var t = document.querySelector('title');
    if (t && t.getAttribute('data-' + l)) document.title = t.getAttribute('data-' + l);
    try { localStorage.setItem('report-lang', l); } catch (e) { /* storage may be disabled */ }
    try {
      var u = new URL(location.href);
      u.searchParams.set('lang', l);
      history.replaceState(null, '', u.href);
    } catch (e) { /* file:// in some browsers */ }
    return relabel(l);
  }

  var toggle = document.getElementById('lang-toggle');
  if (toggle) {
    toggle.addEventListener('click', function () {
      window.__lastToggleMs = undefined;
      setLang(lang() === 'zh' ? 'en' : 'zh');
    });
  }
  window.reportSetLang = setLang;

  // Several workloads: show one view; figures drawn while hidden get their width on show.
  function showView(id) {
    document.querySelectorAll('.view').forEach(function (v) {
      v.hidden = v.getAttribute('data-view') !== id;
    });
    document.querySelectorAll('.view-btn').forEach(function (b) {
      b.setAttribute('aria-selected', b.getAttribute('data-view') === id ? 'true' : 'false');
    });
    root.setAttribute('data-view', id);
    if (!Plotly || figLang === null) return;
    DATA.figs.forEach(function (f) {
      if (f.id.indexOf(id + '-') === 0) Plotly.Plots.resize(document.getElementById(f.id));
    });
  }
  document.querySelectorAll('.view-btn').forEach(function (b) {
    b.addEventListener('click', function () { showView(b.getAttribute('data-view')); });
  });
  window.reportShowView = showView;

  // Printing changes the page width; redraw the figures to fit it, and back afterwards.
  function resizeAll() {
    if (!Plotly || figLang === null) return;
    DATA.figs.forEach(function (f) { Plotly.Plots.resize(document.getElementById(f.id)); });
  }
  window.addEventListener('beforeprint', resizeAll);
  window.addEventListener('afterprint', resizeAll);

  if (!window.PlotlyReady) { fail(new Error('plotly.js loader missing')); return; }
  window.PlotlyReady.then(draw).catch(fail);
})();
