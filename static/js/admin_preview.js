/* Markdown preview for admin textareas: renders through the site's own renderer and
   sanitiser (POST to <model>/markdown-preview/), so authors see exactly what learners see. */
(function () {
  "use strict";
  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }
  function previewUrl() {
    var parts = window.location.pathname.split("/").filter(Boolean);
    // /admin/<app>/<model>/... -> /admin/<app>/<model>/markdown-preview/
    return "/" + parts.slice(0, 3).join("/") + "/markdown-preview/";
  }
  function attach(textarea) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "button md-preview-button";
    button.textContent = "Refresh preview";
    var pane = document.createElement("div");
    pane.className = "md-preview";
    pane.setAttribute("aria-live", "polite");
    pane.hidden = true;
    var timer = null;
    var sent = 0;
    function render() {
      var body = new URLSearchParams();
      body.set("text", textarea.value);
      var mine = ++sent;
      fetch(previewUrl(), {
        method: "POST",
        headers: { "X-CSRFToken": csrfToken(), "Content-Type": "application/x-www-form-urlencoded" },
        body: body.toString(),
        credentials: "same-origin"
      }).then(function (r) { return r.json(); }).then(function (data) {
        if (mine !== sent) { return; }  // a later keystroke's render is on its way
        pane.hidden = false;
        if (data.error) { pane.textContent = data.error; } else { pane.innerHTML = data.html; }
      });
    }
    button.addEventListener("click", render);
    // Live: re-render 600 ms after the author stops typing.
    textarea.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(render, 600);
    });
    textarea.insertAdjacentElement("afterend", pane);
    textarea.insertAdjacentElement("afterend", button);
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("textarea.vLargeTextField").forEach(attach);
  });
})();
