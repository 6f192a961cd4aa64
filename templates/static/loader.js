/* plotly.js, unpacked only when a figure needs it: base64 → gzip → DecompressionStream → one
   inline script element (no network, no eval; the CSP allows it by its sha256).
   window.loadPlotly() starts it once and returns the promise of window.Plotly;
   window.unpackPlotly() only decompresses (off the main thread; app.js calls it after the
   first frame, and shows its error at once when it fails); the script is
   only run — the one long task — when app.js asks, i.e. when a figure nears the viewport,
   so the text and tables paint first and the page stays responsive until then. */
(function () {
  var text = null, ready = null;

  function unpack() {
    if (text) return text;
    text = new Promise(function (resolve) { resolve(); }).then(function () {
      if (typeof DecompressionStream === 'undefined') {
        var err = new Error('DecompressionStream is not supported by this browser');
        err.code = 'no-decompression-stream';
        throw err;
      }
      var b64 = document.getElementById('plotly-gz').textContent.trim(), bytes;
      if (Uint8Array.fromBase64) {
        bytes = Uint8Array.fromBase64(b64);
      } else {
        var bin = atob(b64);
        bytes = new Uint8Array(bin.length);
        for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      }
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
      return new Response(stream).text();
    });
    return text;
  }

  window.loadPlotly = function () {
    if (ready) return ready;
    ready = unpack().then(function (js) {
      var s = document.createElement('script');
      s.text = js;
      document.head.appendChild(s);
      if (!window.Plotly) throw new Error('plotly.js failed to load');
      window.__plotlyReadyAt = performance.now();
      return window.Plotly;
    });
    return ready;
  };

  window.unpackPlotly = unpack;   // app.js starts it after the first frame
})();
