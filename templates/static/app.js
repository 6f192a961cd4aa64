/* Draw the figures and run the language toggle.
   report-figs = {defaultLang, template, figs: [{id, kind, fig, i18n: {zh, en}}]} (a large
   round's: {id, kind} only, {fig, i18n} in report-figs-body, packed): each figure is
   stored in the default language; i18n[lang] = {data, layout, traces} holds only what differs,
   applied before the first draw (other language) or with one Plotly.update per drawn figure. */
(function () {
  'use strict';
  var root = document.documentElement;
  var DATA = JSON.parse(document.getElementById('report-figs').textContent);
  var Plotly = null;

  function lang() { return root.getAttribute('data-lang') === 'en' ? 'en' : 'zh'; }

  // The chart toolbar's words in Chinese: the modebar subset of plotly.js's zh-CN locale
  // (lib/locales/zh-cn.js, MIT licence), registered with Plotly.register — no network.
  var ZH = {
    'Autoscale': '自动缩放', 'Box Select': '矩形框选', 'Compare data on hover': '悬停时比较数据',
    'Double-click on legend to isolate one trace': '双击图例来突显对应轨迹',
    'Double-click to zoom back out': '双击返回缩小显示',
    'Download plot as a png': '下载图表为PNG格式', 'Download plot as a PNG': '下载图表为PNG格式',
    'Download plot': '下载图表',
    'Lasso Select': '套索选择', 'Pan': '平移', 'Produced with Plotly.js': '由Plotly.js生成',
    'Reset': '重置', 'Reset axes': '重置轴', 'Reset view': '重置视图', 'Reset views': '重置视图',
    'Show closest data on hover': '悬停时显示最近的数据', 'Snapshot succeeded': '生成快照成功',
    'Sorry, there was a problem downloading your snapshot!': '抱歉，下载快照出现问题！',
    'Taking snapshot - this may take a few seconds': '正在生成快照 - 可能需要几秒钟',
    'Zoom': '缩放', 'Zoom in': '放大', 'Zoom out': '缩小',
    'Toggle Spike Lines': '切换显示数据点辅助线(Spike Lines)',
    'Toggle show closest data on hover': '切换悬停时显示最近的数据点'
  };
  function locale(l) { return l === 'zh' ? 'zh-CN' : 'en'; }

  // The modebar is built once; a language switch renames its buttons in place.
  function relabelModebar(el, l) {
    if (el._context) el._context.locale = locale(l);
    el.querySelectorAll('.modebar-btn[data-title]').forEach(function (b) {
      var en = b.getAttribute('data-title-en');
      if (!en) {
        en = b.getAttribute('data-title');
        Object.keys(ZH).forEach(function (k) { if (ZH[k] === en) en = k; });
        b.setAttribute('data-title-en', en);
      }
      b.setAttribute('data-title', l === 'zh' && ZH[en] ? ZH[en] : en);
    });
  }

  function config(id) {
    return {
      locale: locale(lang()),
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

  // Drawing. A figure is drawn when it comes near the viewport (IntersectionObserver), so the
  // first screen's figures are drawn as soon as plotly.js is ready and the others as the
  // reader scrolls, one figure per task. window.reportDrawFigure(id) and
  // window.reportDrawAll() are the entry points for other scripts (print, tests, sections
  // that add figures); each returns a promise. Every figure drawn raises the event
  // 'report:figure-drawn' (detail: {id}) on document; html[data-rendered=true] once all are.
  var byId = {};
  DATA.figs.forEach(function (f) { byId[f.id] = f; });
  // plotly.js's default for a numeric axis, ticklabeloverflow 'hide past div', measures every
  // tick label again after drawing, a forced layout per label interleaved with style writes:
  // a third of each figure's first draw. With automargin no label reaches past the div, so
  // 'allow' draws the same figure without that pass (an axis that sets its own keeps it).
  ['xaxis', 'yaxis'].forEach(function (k) {
    var t = DATA.template.layout = DATA.template.layout || {};
    t[k] = t[k] || {};
    if (t[k].ticklabeloverflow === undefined) t[k].ticklabeloverflow = 'allow';
  });
  // A large round's figures come packed (render.split_figures): report-figs holds their ids
  // and the template, report-figs-body the rest, unpacked once before the first draw.
  var bodyBlock = document.getElementById('report-figs-body');
  var bodies = null;
  function figureBodies() {
    if (!bodyBlock) return Promise.resolve();
    if (!bodies) {
      bodies = window.reportJson(bodyBlock).then(function (parts) {
        parts.forEach(function (p, i) { Object.assign(DATA.figs[i], p); });
      });
    }
    return bodies;
  }
  var drawn = {};            // id → promise of the drawn figure
  var drawnCount = 0;
  var queue = Promise.resolve();
  var registered = false;

  function plotly() {
    if (!window.loadPlotly) return Promise.reject(new Error('plotly.js loader missing'));
    return window.loadPlotly().then(function (P) {
      Plotly = P;
      if (!registered) {
        registered = true;
        Plotly.register({ moduleType: 'locale', name: 'zh-CN', dictionary: ZH,
                          format: { decimal: '.', thousands: ',' } });
      }
      return P;
    });
  }

  // Performance marks for benchmarks/page_trace.py (each figure's draw is a measure).
  function mark(name) { if (performance.mark) performance.mark(name); }
  function measure(name, from) { if (performance.measure) performance.measure(name, from); }

  // figures drawn one after the other chain dozens of tasks: loader.js's, never clamped
  var later = window.reportLater || function (fn) { setTimeout(fn, 0); };
  function nextTask() {
    return new Promise(function (resolve) { later(resolve); });
  }

  function drawFigure(id) {
    if (drawn[id]) return drawn[id];
    var f = byId[id], el = document.getElementById(id);
    if (!f || !el) return Promise.resolve(null);
    drawn[id] = queue = queue.then(plotly).then(figureBodies).then(nextTask).then(function () {
      var l = lang();
      var fig = f.fig;
      fig.layout.template = JSON.parse(JSON.stringify(DATA.template));
      if (l !== DATA.defaultLang) patchFigure(fig, f.i18n[l]);
      var wait = el.querySelector('.plot-wait');
      if (wait) el.removeChild(wait);
      // another script may complete the figure first (slo.js: the distributions' curves)
      document.dispatchEvent(new CustomEvent('report:figure-draw',
                                             { detail: { id: id, fig: fig } }));
      mark('fig:' + id + ':start');
      return Plotly.newPlot(el, fig.data, fig.layout, config(f.id)).then(function () {
        measure('fig:' + id, 'fig:' + id + ':start');
        figLangs[id] = l;
        relabelModebar(el, l);
        if (!window.__firstFigureAt) window.__firstFigureAt = performance.now();
        drawnCount++;
        document.dispatchEvent(new CustomEvent('report:figure-drawn', { detail: { id: id } }));
        if (drawnCount === DATA.figs.length) {
          window.__allRenderedAt = performance.now();
          root.setAttribute('data-rendered', 'true');
        }
        if (lang() !== l) return relabelOne(id, lang());   // toggled while drawing
        return el;
      });
    });
    drawn[id].catch(fail);
    return drawn[id];
  }

  function drawAll() {
    return Promise.all(DATA.figs.map(function (f) { return drawFigure(f.id); }));
  }
  window.reportDrawFigure = drawFigure;
  window.reportDrawAll = drawAll;

  // Once the reader scrolls, every figure is drawn ahead, the nearest to the screen first, one
  // per task (a figure takes 50–300 ms to draw; the page stays scrollable between two, and
  // not in idle time: a reader who scrolls leaves little of it, and waits for the figures).
  function distance(el) {
    var r = el.getBoundingClientRect();
    if (r.top > window.innerHeight) return r.top - window.innerHeight;
    return r.bottom < 0 ? -r.bottom : 0;
  }
  function nearest() {
    var best = null, least = Infinity;
    DATA.figs.forEach(function (f) {
      var el = document.getElementById(f.id);
      if (!el || drawn[f.id] || el.offsetParent === null) return;
      var d = distance(el);
      if (d < least) { best = f.id; least = d; }
    });
    return best;
  }
  function ahead() {
    var id = nearest();
    if (id) drawFigure(id).then(function () { later(ahead); }, fail);
  }

  var figLangs = {};         // id → language the drawn figure is in
  var MARGIN = 200;          // px below the viewport where drawing starts
  if ('IntersectionObserver' in window) {
    var seen = new IntersectionObserver(function (items) {
      items.forEach(function (it) {
        if (!it.isIntersecting) return;
        seen.unobserve(it.target);
        drawFigure(it.target.id);
      });
    }, { rootMargin: MARGIN + 'px 0px' });
    DATA.figs.forEach(function (f) {
      var el = document.getElementById(f.id);
      if (el) seen.observe(el);
    });
    // A fast scroll (or a jump to an anchor) can carry a figure from below the viewport to
    // above it between two frames, never intersecting: draw every figure already passed.
    var sweeping = false, moved = false;
    window.addEventListener('scroll', function () {
      if (!moved) {          // the reader moves: the figures nearest the screen are drawn ahead
        moved = true;
        plotly().then(function () { later(ahead); }).catch(fail);
      }
      if (sweeping || drawnCount === DATA.figs.length) return;
      sweeping = true;
      requestAnimationFrame(function () {
        sweeping = false;
        var limit = window.innerHeight + MARGIN;
        DATA.figs.forEach(function (f) {
          var el = document.getElementById(f.id);
          if (el && !drawn[f.id] && el.offsetParent !== null &&
              el.getBoundingClientRect().top < limit) drawFigure(f.id);
        });
      });
    }, { passive: true });
  } else {
    drawAll();
  }

  // Printing: a live chart does not survive the print layout (its SVG is sized for the
  // screen and redraws asynchronously), so on beforeprint every figure is drawn and rendered
  // by plotly.js as a static SVG image of itself, shown only in print; html.print-ready says
  // they are current. Not at load: rendering them all stalled the page for ~180 ms. `?print=1`
  // (reportgen build --pdf) does it at load, since headless printing waits for no event.
  var PRINT_WIDTH = 900;
  var printRun = 0;
  function printImages() {
    var run = ++printRun;
    root.classList.remove('print-ready');
    return Promise.all(DATA.figs.map(function (f) {
      var el = document.getElementById(f.id);
      if (!el || !el._fullLayout) return null;
      var h = el._fullLayout.height || 460;
      return Plotly.toImage(el, { format: 'svg', width: PRINT_WIDTH, height: h })
        .then(function (url) {
          if (run !== printRun) return;
          var img = el.parentNode.querySelector('img.plot-print');
          if (!img) {
            img = document.createElement('img');
            img.className = 'plot-print';
            img.alt = '';
            el.parentNode.insertBefore(img, el.nextSibling);
          }
          img.width = PRINT_WIDTH;
          img.height = h;
          img.src = url;
          return img.decode ? img.decode().catch(function () {}) : null;
        });
    })).then(function () {
      if (run !== printRun) return;
      root.classList.add('print-ready');
      root.setAttribute('data-print-ready', 'true');
    });
  }
  // Large tables come folded (render.FOLD_CELLS): their rows wait in the report-rows block
  // (per table, its <tr> lines) and are put in when the reader opens the fold, ROWS_SLICE rows
  // per task so that no task runs long, and all at once before printing (the folds holding
  // them open for print, closed again after). The block is unpacked once, at idle time after
  // load, so that beforeprint (which cannot wait) finds it ready.
  var ROWS_SLICE = 200;
  var rowsBlock = document.getElementById('report-rows');
  var rowsAll = null, rowsP = null;
  function foldedRows() {
    if (!rowsP) {
      rowsP = window.reportJson(rowsBlock)
        .then(function (rows) { rowsAll = rows; return rowsAll; });
    }
    return rowsP;
  }
  function putRows(tb, upto) {          // rows up to `upto` in; true when all are
    var lines = rowsAll[+tb.getAttribute('data-rows')] || [];
    var at = tb._rowsAt || 0, end = Math.min(upto, lines.length);
    if (end > at) tb.insertAdjacentHTML('beforeend', lines.slice(at, end).join(''));
    tb._rowsAt = end;
    if (end >= lines.length) {
      tb.setAttribute('data-filled', '');
      tb.parentNode.removeAttribute('aria-busy');
      return true;
    }
    return false;
  }
  function fillSliced(tb) {
    if (tb._rowsFilling || tb.hasAttribute('data-filled')) return;
    tb._rowsFilling = true;
    tb.parentNode.setAttribute('aria-busy', 'true');
    (function step() {
      if (!putRows(tb, (tb._rowsAt || 0) + ROWS_SLICE)) later(step);
    })();
  }
  var printOpened = [];
  function rowsForPrint() {
    document.querySelectorAll('tbody[data-rows]').forEach(function (tb) { putRows(tb, Infinity); });
    document.querySelectorAll('details.fold-rows').forEach(function (fold) {
      for (var d = fold; d; d = d.parentNode.closest('details')) {
        if (!d.open) { d.open = true; printOpened.push(d); }
      }
    });
  }
  if (rowsBlock) {
    document.addEventListener('toggle', function (ev) {
      var d = ev.target;
      if (!d.open || !d.querySelectorAll) return;
      var bodies = d.querySelectorAll('tbody[data-rows]:not([data-filled])');
      if (!bodies.length) return;
      foldedRows().then(function () { bodies.forEach(fillSliced); }).catch(fail);
    }, true);   // toggle does not bubble: caught on its way down
    window.addEventListener('load', function () {
      var idle = window.requestIdleCallback || function (fn) { setTimeout(fn, 1000); };
      idle(function () { foldedRows().catch(fail); }, { timeout: 5000 });
    });
  }
  window.addEventListener('afterprint', function () {
    printOpened.forEach(function (d) { d.open = false; });
    printOpened = [];
  });

  function forPrint() {
    var rows = rowsBlock ? foldedRows().then(rowsForPrint) : rowsForPrint();
    return Promise.all([drawAll(), rows]).then(printImages);
  }
  window.reportPrintImages = forPrint;
  window.addEventListener('beforeprint', function () {
    if (rowsAll || !rowsBlock) rowsForPrint();
    if (!root.classList.contains('print-ready')) forPrint().catch(fail);
  });

  function relabelOne(id, l) {
    var el = document.getElementById(id);
    if (!el || !drawn[id] || figLangs[id] === undefined || figLangs[id] === l) {
      return Promise.resolve();
    }
    figLangs[id] = l;
    var p = byId[id].i18n[l];
    relabelModebar(el, l);
    return Plotly.update(el, p.data, p.layout, p.traces);
  }

  function relabel(l) {
    if (!Plotly) return Promise.resolve();
    var t0 = performance.now();
    return Promise.all(DATA.figs.map(function (f) { return relabelOne(f.id, l); }))
      .then(function () {
        window.__lastToggleMs = performance.now() - t0;
        if (root.classList.contains('print-ready')) printImages();
      });
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
    if (!Plotly) return;
    DATA.figs.forEach(function (f) {
      var el = document.getElementById(f.id);
      if (f.id.indexOf(id + '-') === 0 && el && el._fullLayout) Plotly.Plots.resize(el);
    });
  }
  document.querySelectorAll('.view-btn').forEach(function (b) {
    b.addEventListener('click', function () { showView(b.getAttribute('data-view')); });
  });
  window.reportShowView = showView;


  // `build --pdf --paper letter`: the print CSS says A4; a rule added through the CSSOM (no
  // inline style, so the page's CSP holds) sets the other size
  if (/[?&]paper=letter(&|$)/.test(location.search) && document.styleSheets.length) {
    var sheet = document.styleSheets[document.styleSheets.length - 1];
    sheet.insertRule('@page { size: letter; }', sheet.cssRules.length);
  }
  if (/[?&]print=1(&|$)/.test(location.search)) forPrint().catch(fail);

  // From the first frame on: plotly.js is unpacked once the text has painted, then run in
  // short steps (loader.js), so it is ready when the reader reaches a figure, and the page
  // never stalls while the reader only reads. A browser that cannot unpack is told at once.
  function early() {
    setTimeout(function () { plotly().catch(fail); }, 0);
  }
  if (window.requestAnimationFrame) requestAnimationFrame(early); else early();
})();
