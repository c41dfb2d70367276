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

// Try first: the answer is a <details> fold (it opens without JavaScript too). While it is
// closed, the question's calculators show their inputs but not their results (site.css,
// :has); "Calculate" shows one block's result. Opening the fold records a signed-in
// learner's reveal (with the approach typed so far), as "Save and reveal" does.
(function () {
  "use strict";
  var fold = document.getElementById("answer-fold");
  if (!fold) return;
  var embeds = document.querySelectorAll(".question .calc-embed");
  for (var i = 0; i < embeds.length; i++) {
    var result = embeds[i].querySelector(".calc-result");
    if (!result) continue;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "button button-secondary calc-calculate";
    button.textContent = "Calculate";
    button.addEventListener("click", function (event) {
      var embed = event.currentTarget.closest(".calc-embed");
      embed.classList.add("calc-shown");
      var shown = embed.querySelector(".calc-result");
      if (shown) {
        shown.setAttribute("tabindex", "-1");
        shown.focus();
      }
    });
    result.parentNode.insertBefore(button, result);
  }
  var recorded = fold.open;
  fold.addEventListener("toggle", function () {
    if (!fold.open || recorded || !fold.dataset.revealUrl) return;
    recorded = true;
    var form = document.querySelector("form.practice-form");
    var body = form ? new FormData(form) : new FormData();
    body.set("action", "reveal");
    if (!form) {
      var csrf = document.querySelector('input[name="csrfmiddlewaretoken"]');
      if (csrf) body.set("csrfmiddlewaretoken", csrf.value);
    }
    fetch(fold.dataset.revealUrl, {
      method: "POST",
      body: body,
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        // revealed now: the page's "reveal" prompts are done with
        var done = document.querySelectorAll('form.practice-form button[value="reveal"], .practice-hint');
        for (var k = 0; k < done.length; k++) done[k].remove();
      })
      .catch(function () {
        recorded = false; // not recorded: the next opening tries again
      });
  });
})();

// Times in the reader's time zone: the server writes UTC (pages may be cached for every
// reader, so it cannot know the zone); the browser rewrites each <time data-local-time>
// in its own zone and names it. The zone also goes in a cookie, for what the server
// renders for this reader alone (views/common.reader_zone: the rating's flash message).
(function () {
  "use strict";
  var zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (e) {
    return; // no Intl: the UTC text stays, and says so
  }
  var format = new Intl.DateTimeFormat(undefined, {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  });
  var times = document.querySelectorAll("time[data-local-time]");
  for (var i = 0; i < times.length; i++) {
    var when = new Date(times[i].getAttribute("datetime"));
    if (isNaN(when.getTime())) continue;
    times[i].textContent = format.format(when);
    times[i].title = "In your time zone (" + zone + ")";
  }
  // IANA names are cookie-safe as they are ("America/Argentina/Buenos_Aires", "Etc/GMT+5")
  if (zone && /^[A-Za-z0-9_+\/-]{1,64}$/.test(zone)) {
    document.cookie = "tz=" + zone + "; path=/; max-age=31536000; samesite=lax";
  }
})();
