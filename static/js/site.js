// Site-wide behaviour that needs JavaScript. Every page works without it: the theme
// then follows the system setting, and shortcuts are simply absent.
(function () {
  "use strict";
  var KEY = "inferview-theme";
  var root = document.documentElement;
  var darkQuery = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  // --- Dark mode toggle: remembered in this browser, and on the profile when signed in.
  function effectiveTheme() {
    var chosen = root.getAttribute("data-theme");
    if (chosen === "light" || chosen === "dark") return chosen;
    return darkQuery && darkQuery.matches ? "dark" : "light";
  }
  var toggle = document.getElementById("theme-toggle");
  function syncToggle() {
    if (toggle) toggle.setAttribute("aria-pressed", effectiveTheme() === "dark" ? "true" : "false");
  }
  if (toggle) {
    toggle.hidden = false;
    syncToggle();
    if (darkQuery && darkQuery.addEventListener) darkQuery.addEventListener("change", syncToggle);
    toggle.addEventListener("click", function () {
      var next = effectiveTheme() === "dark" ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try {
        window.localStorage.setItem(KEY, next);
      } catch (e) {
        // not remembered in this browser; the page still switches
      }
      syncToggle();
      if (toggle.dataset.saveUrl) {
        var body = new FormData();
        body.append("theme", next);
        fetch(toggle.dataset.saveUrl, {
          method: "POST",
          body: body,
          headers: { "X-CSRFToken": toggle.dataset.csrf, Accept: "application/json" },
          credentials: "same-origin",
        }).catch(function () {
          // kept in this browser; the profile keeps its previous choice
        });
      }
    });
  }

  // --- Wide tables and code blocks scroll inside their box. A box that scrolls must be
  // reachable by keyboard (WCAG 2.1.1; axe's scrollable-region-focusable), so it becomes
  // a focusable, named region only while it actually overflows.
  function markScrollables() {
    var boxes = document.querySelectorAll("main table, main pre, main div, main figure");
    for (var i = 0; i < boxes.length; i++) {
      var box = boxes[i];
      if (box.scrollWidth <= box.clientWidth + 1 && !box.hasAttribute("data-scroll-marked")) continue;
      var overflowX = window.getComputedStyle(box).overflowX;
      var scrolls = (overflowX === "auto" || overflowX === "scroll") && box.scrollWidth > box.clientWidth + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("data-scroll-marked", "");
        if (!box.hasAttribute("aria-label") && !box.hasAttribute("aria-labelledby")) {
          box.setAttribute("role", "region");
          var what = box.tagName === "PRE" ? "Code" : box.tagName === "TABLE" || box.querySelector("table") ? "Table" : "Content";
          box.setAttribute("aria-label", what + " (scrolls sideways)");
        }
      } else if (!scrolls && box.hasAttribute("data-scroll-marked")) {
        box.removeAttribute("tabindex");
        box.removeAttribute("data-scroll-marked");
        if (box.getAttribute("role") === "region") {
          box.removeAttribute("role");
          box.removeAttribute("aria-label");
        }
      }
    }
  }
  markScrollables();
  var resizeTimer = null;
  window.addEventListener("resize", function () {
    window.clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(markScrollables, 150);
  });

  // --- Keyboard shortcuts on question pages, listed in a dialog behind "?".
  var dialog = document.getElementById("shortcuts-dialog");
  if (!dialog) return;
  var opener = document.getElementById("shortcuts-open");
  if (opener) {
    opener.hidden = false;
    opener.addEventListener("click", function () {
      dialog.showModal();
    });
  }
  function follow(rel) {
    var link = document.querySelector('link[rel="' + rel + '"], a[rel="' + rel + '"]');
    if (link && link.href) window.location.href = link.href;
  }
  var actions = {
    j: function () { follow("next"); },
    n: function () { follow("next"); },
    k: function () { follow("prev"); },
    p: function () { follow("prev"); },
    b: function () {
      var bookmark = document.querySelector(".question-tools .bookmark-button");
      if (bookmark) bookmark.click();
    },
    r: function () {
      var fold = document.getElementById("answer-fold");
      if (fold && !fold.open) {
        fold.open = true; // its toggle event records a signed-in learner's reveal
        fold.querySelector("summary").focus();
        return;
      }
      var answer = document.getElementById("answer-heading");
      if (answer) {
        answer.setAttribute("tabindex", "-1");
        answer.focus();
        answer.scrollIntoView();
      }
    },
    "?": function () {
      if (!dialog.open) dialog.showModal();
    },
  };
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    var tag = target && target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable)) return;
    if (dialog.open && event.key !== "Escape") return;
    var action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });
})();
