/* /docs "try it" forms (#15): send the example request from the page and show the status and the
 * JSON reply. Same-origin only; the reply is shown through textContent. */
(function () {
  "use strict";
  document.querySelectorAll("form.try").forEach(function (form) {
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var method = form.getAttribute("data-method"), url = form.getAttribute("data-path"), init = { method: method };
      var status = form.querySelector(".try-status"), out = form.querySelector(".try-out");
      if (method === "POST") {
        init.headers = { "Content-Type": "application/json" };
        init.body = form.querySelector("textarea[name=body]").value;
      } else {
        var params = new URLSearchParams();
        form.querySelectorAll("input[name]").forEach(function (i) { params.set(i.name, i.value); });
        if (String(params)) url += "?" + params;
      }
      status.textContent = "…";
      var started = performance.now();
      fetch(url, init).then(function (r) {
        return r.text().then(function (text) {
          var ms = Math.round(performance.now() - started);
          status.textContent = r.status + " " + r.statusText + " · " + ms + " ms";
          try { text = JSON.stringify(JSON.parse(text), null, 1); } catch (err) { /* not JSON: as sent */ }
          out.textContent = text;
          out.hidden = false;
        });
      }).catch(function (err) { status.textContent = "network error: " + err; });
    });
  });
})();
