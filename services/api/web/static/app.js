// Progressive enhancement only: without this script the form submits and the server
// renders everything. With it, changing a field swaps in the new chart and table.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function ready(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }

  // Only filled fields go into the URL, so shared links stay short and readable.
  function queryOf(form) {
    var params = new URLSearchParams();
    new FormData(form).forEach(function (value, key) {
      if (String(value).trim() !== "") params.append(key, value);
    });
    return params.toString();
  }

  ready(function () {
    var form = document.getElementById("query");
    if (!form) return;
    var fragment = form.getAttribute("data-fragment");
    var pending = null;
    var timer = null;
    var copy = document.getElementById("copy-link");

    function update() {
      var query = queryOf(form);
      var results = document.getElementById("results");
      if (pending) pending.abort();
      pending = new AbortController();
      if (results) results.classList.add("loading");
      fetch(fragment + "?" + query, { signal: pending.signal, headers: { Accept: "text/html" } })
        .then(function (response) { return response.text(); })
        .then(function (html) {
          var current = document.getElementById("results");
          if (current) current.outerHTML = html;
          history.replaceState(null, "", "/" + (query ? "?" + query : ""));
          document.dispatchEvent(new CustomEvent("results:updated", { detail: query }));
        })
        .catch(function (error) {
          if (error.name !== "AbortError") form.submit();  // fall back to a page load
        });
    }

    form.addEventListener("change", function () { clearTimeout(timer); update(); });
    // Typing in a number field: wait for a pause instead of a request per keystroke.
    form.addEventListener("input", function (event) {
      if (event.target.type !== "number") return;
      clearTimeout(timer);
      timer = setTimeout(update, 350);
    });
    form.addEventListener("submit", function (event) { event.preventDefault(); update(); });

    if (copy && navigator.clipboard) {
      copy.hidden = false;
      copy.addEventListener("click", function () {
        navigator.clipboard.writeText(location.href).then(function () {
          copy.textContent = "Copied";
          setTimeout(function () { copy.textContent = "Copy link"; }, 1500);
        });
      });
    }
  });
})();
