/* plotly.js and the page's packed arrays, unpacked in the page: base64 → gzip →
   DecompressionStream. No network, no eval.
   - window.reportJson(script): the promise of a script block's JSON, packed or plain.
   - window.reportUnpack(b64): the promise of a Response over the unpacked bytes (slo.js reads
     its arrays with it); it rejects, err.code 'no-decompression-stream', in a browser without
     DecompressionStream.
   - window.loadPlotly(): the promise of window.Plotly (plotly.js is unpacked once).
     The script is loaded from a blob: URL with its sha256 as integrity (the CSP allows it by
     that hash), so Chromium parses and compiles it off the main thread; where that is refused
     it is run inline (the same hash). A bundle made runnable in steps (tools/step_plotly.py:
     window.__plotlySteps) then runs its ~370 modules a few at a time, in tasks of about
     SLICE_MS, so the page never stalls; window.Plotly is set after the last.
   The bundle is unpacked and handed to the browser as soon as the text and tables have
   painted (the first contentful paint: paintDone()), never before, so reading never waits on
   plotly.js; compiling then happens off the main thread, and its modules run when app.js
   calls loadPlotly(). A report with shared scripts (reportgen index) names the site's
   plotly.js file in data-src instead: it is loaded, after the same paint, by a script element
   (compiled off the main thread too). */
(function () {
  var SLICE_MS = 8;    // a slice overruns by its last module (≤ ~30 ms on a slow machine)
  var ready = null;

  function unpack(b64) {
    return new Promise(function (resolve) {
      if (typeof DecompressionStream === 'undefined') {
        var err = new Error('DecompressionStream is not supported by this browser');
        err.code = 'no-decompression-stream';
        throw err;
      }
      var bytes;
      if (Uint8Array.fromBase64) {
        bytes = Uint8Array.fromBase64(b64);
      } else {
        var bin = atob(b64);
        bytes = new Uint8Array(bin.length);
        for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      }
      resolve(new Response(new Blob([bytes]).stream()
        .pipeThrough(new DecompressionStream('gzip'))));
    });
  }
  window.reportUnpack = unpack;

  // The JSON of a script block: plain, or base64 of gzip (type application/octet-stream:
  // render.page_json, the figures' body, the folded rows); a promise either way.
  function json(script) {
    if (script.type !== 'application/octet-stream') {
      return Promise.resolve(JSON.parse(script.textContent));
    }
    return unpack(script.textContent.trim()).then(function (r) { return r.json(); });
  }
  window.reportJson = json;

  // Performance marks for benchmarks/page_speed.py's trace (no-op where unsupported).
  function mark(name) { if (performance.mark) performance.mark(name); }

  // The next task, not clamped as nested timeouts are (≥ 4 ms each after the fifth); the
  // browser still renders between two. app.js chains its figure draws with it too.
  function later(fn) {
    if (typeof MessageChannel === 'undefined') { setTimeout(fn, 0); return; }
    var ch = new MessageChannel();
    ch.port1.onmessage = fn;
    ch.port2.postMessage(0);
  }
  window.reportLater = later;

  function inline(js) {
    var s = document.createElement('script');
    s.text = js;
    document.head.appendChild(s);
  }

  function run(blob, integrity) {
    if (!integrity) return blob.text().then(inline);
    return new Promise(function (resolve, reject) {
      var s = document.createElement('script');
      var url = URL.createObjectURL(new Blob([blob], { type: 'text/javascript' }));
      function done() { URL.revokeObjectURL(url); }
      s.onload = function () { done(); resolve(); };
      s.onerror = function () {      // a browser that does not match hashes to blob: scripts
        done();
        s.parentNode.removeChild(s);
        blob.text().then(inline).then(resolve, reject);
      };
      s.integrity = integrity;
      s.src = url;
      document.head.appendChild(s);
    });
  }

  function steps(S) {
    return new Promise(function (resolve, reject) {
      var i = 0;
      function slice() {
        try {
          var t0 = performance.now();
          while (i < S.steps.length && performance.now() - t0 < SLICE_MS) S.steps[i++]();
          if (i < S.steps.length) later(slice); else resolve(S.main());
        } catch (e) {
          reject(e);
        }
      }
      later(slice);
    });
  }

  // The promise of the page's first contentful paint (its text). A browser without paint
  // timing waits for the first frame instead; a page opened in a background tab does not wait
  // (it paints only when shown, and no one is reading it yet), nor does one that has not
  // painted within PAINT_WAIT_MS.
  var PAINT_WAIT_MS = 3000;
  var painted = null;
  function paintDone() {
    if (painted) return painted;
    painted = new Promise(function (go) {      // go() again later is a no-op
      var PO = window.PerformanceObserver;
      var types = (PO && PO.supportedEntryTypes) || [];
      if (types.indexOf('paint') < 0) {
        if (window.requestAnimationFrame) requestAnimationFrame(function () { later(go); });
        else setTimeout(go, 0);
        return;
      }
      var FCP = 'first-contentful-paint';
      if (performance.getEntriesByName(FCP).length) { go(); return; }
      var po = new PO(function (list) {
        if (list.getEntriesByName(FCP).length) { po.disconnect(); go(); }
      });
      try { po.observe({ type: 'paint', buffered: true }); } catch (e) { go(); }
      if (document.visibilityState === 'hidden') go();
      setTimeout(function () { po.disconnect(); go(); }, PAINT_WAIT_MS);
    });
    return painted;
  }

  // Unpacked after the first contentful paint: base64 and gzip are decoded on the main thread
  // in a few ms, then the script is handed to the browser at once: it is compiled off the main
  // thread, and running it only defines the modules (the stepped bundle).
  var bundle = null;
  // A report of an index site references the site's one copy of plotly.js instead
  // (data-src, a relative file URL): added after the first contentful paint all the same.
  function external(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement('script');
      s.onload = function () { resolve(); };
      s.onerror = function () { reject(new Error('plotly.js not found at ' + src)); };
      s.src = src;
      document.head.appendChild(s);
    });
  }
  function loadBundle(el) {
    if (bundle) return bundle;
    var src = el && el.getAttribute('data-src');
    if (src) {
      bundle = paintDone().then(function () {
        mark('plotly:start');
        return external(src);
      });
      return bundle;
    }
    bundle = paintDone()
      .then(function () {
        mark('plotly:start');
        return unpack(el.textContent.trim());
      })
      .then(function (r) { return r.blob(); })
      .then(function (blob) {
        mark('plotly:unpacked');
        return run(blob, el.getAttribute('data-integrity'));
      });
    return bundle;
  }
  var gz = document.getElementById('plotly-gz');
  if (gz) loadBundle(gz).catch(function () { /* reported by loadPlotly() */ });

  window.loadPlotly = function () {
    if (ready) return ready;
    ready = loadBundle(document.getElementById('plotly-gz'))
      .then(function () {
        mark('plotly:compiled');
        var S = window.__plotlySteps;
        if (!S) return window.Plotly;
        window.__plotlySteps = undefined;
        return steps(S).then(function (P) { window.Plotly = P; return P; });
      })
      .then(function (P) {
        if (!P || !P.newPlot) throw new Error('plotly.js failed to load');
        mark('plotly:ready');
        window.__plotlyReadyAt = performance.now();
        return P;
      });
    return ready;
  };
})();
