// Calculator pages: fill preset figures into the form, and poll a queued run until done.
// Everything here is an enhancement: the form posts and the run page refreshes without it.
(function () {
  "use strict";

  function setupPresets() {
    var select = document.querySelector(".calc-form select[name=preset]");
    var data = document.getElementById("calc-presets");
    if (!select || !data) return;
    var presets = JSON.parse(data.textContent || "{}");
    function apply(replace) {
      var values = presets[select.value] || {};
      document.querySelectorAll(".calc-form input[data-preset-fill='1']").forEach(function (input) {
        var v = values[input.name];
        input.placeholder = v === undefined ? (input.getAttribute("data-default") || "") : v;
        if (replace && v !== undefined) input.value = v;
      });
    }
    select.addEventListener("change", function () { apply(true); });
    apply(false);
    // With the script running, the preset applies on change; the no-JS button is redundant.
    var button = document.querySelector(".calc-form button[value=preset]");
    if (button) button.style.display = "none";
  }

  // The cached page's form is a GET to the permalink and holds no token. With the CSRF
  // cookie (set by the page's response when missing) it posts instead: a stored run,
  // polled, and the queue for sweeps too large for a link.
  function setupPost() {
    var form = document.querySelector(".calc-form[data-post-with-cookie]");
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([A-Za-z0-9]+)/);
    if (!form || !match) return;
    form.method = "post";
    var run = form.querySelector("input[name=run]");
    if (run) run.remove();
    var token = document.createElement("input");
    token.type = "hidden";
    token.name = "csrfmiddlewaretoken";
    token.value = match[1];
    form.prepend(token);
  }

  function setupPolling() {
    var box = document.querySelector(".calc-progress[data-run-url]");
    if (!box) return;
    var url = box.getAttribute("data-run-url");
    var delay = 150;
    var labels = { queued: "Queued", running: "Running", done: "Done", failed: "Failed" };
    var texts = { queued: "waiting for a worker", running: "computing" };
    var started = Date.now();
    // After a while in the queue, say so: the worker may be down or busy. The page keeps
    // checking, and the run is computed as soon as a worker picks it up.
    var SLOW_MS = 10000;
    function poll() {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (run) {
          box.setAttribute("data-status", run.status);
          box.querySelector(".calc-status").textContent = labels[run.status] || run.status;
          var text = texts[run.status];
          if (run.status === "queued" && Date.now() - started > SLOW_MS) {
            text = "still waiting for a worker; the workers may be busy or stopped. This page keeps checking, and you can come back to this address later";
          }
          if (text) box.querySelector(".calc-status-text").textContent = text;
          if (run.status === "done" || run.status === "failed") {
            window.location.reload();
            return;
          }
          delay = Math.min(delay * 1.5, 2000);
          window.setTimeout(poll, delay);
        })
        .catch(function () { delay = Math.min(delay * 2, 5000); window.setTimeout(poll, delay); });
    }
    window.setTimeout(poll, delay);
  }

  function setupCopy() {
    if (!navigator.clipboard) return;
    document.querySelectorAll("button.calc-copy[data-copy]").forEach(function (button) {
      var label = button.textContent;
      button.hidden = false;
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
          button.textContent = "Copied";
          window.setTimeout(function () { button.textContent = label; }, 1500);
        });
      });
    });
  }

  // Picking a model shows what it fills as each architecture field's placeholder (a value
  // typed into the field still overrides it); the server fills the same from the model.
  function setupModels() {
    var select = document.querySelector(".calc-form select[name=model]");
    var data = document.getElementById("calc-models");
    if (!select || !data) return;
    var models = JSON.parse(data.textContent || "{}");
    var names = {};
    Object.keys(models).forEach(function (slug) {
      Object.keys(models[slug]).forEach(function (name) { names[name] = true; });
    });
    function apply() {
      var values = models[select.value] || {};
      Object.keys(names).forEach(function (name) {
        var input = document.querySelector(".calc-form input[name='" + name + "']");
        if (!input) return;
        var v = values[name];
        input.placeholder = v === undefined ? (input.getAttribute("data-default") || "") : v;
      });
    }
    select.addEventListener("change", apply);
    apply();
  }

  // A form sent back with errors: focus its summary, which names each field and links to
  // it, so a keyboard or screen-reader user starts where the problem is, not at the top.
  function focusErrors() {
    var summary = document.querySelector(".calc-form .form-errors[data-focus-on-load]");
    if (summary) summary.focus();
  }

  setupPresets();
  focusErrors();
  setupPost();
  setupModels();
  setupPolling();
  setupCopy();
})();
