// Bookmark toggles without a page reload. Without this script the same forms post and
// redirect back, so every toggle works with JavaScript off.
(function () {
  "use strict";
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("js-bookmark")) return;
    event.preventDefault();
    var button = form.querySelector("button");
    if (button) button.disabled = true;
    fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (data) {
        if (!button) return;
        var on = Boolean(data.bookmarked);
        button.setAttribute("aria-pressed", on ? "true" : "false");
        button.classList.toggle("is-on", on);
        button.querySelector(".bookmark-icon").textContent = on ? "★" : "☆";
        button.querySelector(".bookmark-label").textContent = on ? button.dataset.labelOn : button.dataset.labelOff;
        button.title = on ? "Remove bookmark" : "Bookmark this";
        button.disabled = false;
        var status = document.getElementById("bookmark-status");
        if (status) status.textContent = on ? "Bookmarked." : "Bookmark removed.";
      })
      .catch(function () {
        form.submit(); // fall back to the plain form post
      });
  });
})();
