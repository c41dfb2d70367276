// The mock interview's visible clock: minutes and seconds on this question, counted from
// when the server started it (so a reload does not reset it). Past the limit it turns
// "over" but never submits for the learner: the server records the real times.
(function () {
  "use strict";
  var el = document.getElementById("mock-clock");
  if (!el) return;
  var started = Date.parse(el.getAttribute("data-started"));
  var limit = parseInt(el.getAttribute("data-limit"), 10) || 0;
  function tick() {
    var s = Math.max(0, Math.floor((Date.now() - started) / 1000));
    var text = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    el.textContent = text;
    el.setAttribute("datetime", "PT" + s + "S");
    el.classList.toggle("mock-over", limit > 0 && s > limit);
  }
  tick();
  setInterval(tick, 1000);
})();
