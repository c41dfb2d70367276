// Sets the colour theme before the first paint. The choice is the signed-in learner's
// saved one (data-theme-saved, rendered by the server) or, for a visitor, the one this
// browser remembers; "system" or nothing leaves it to prefers-color-scheme in site.css.
(function () {
  "use strict";
  var KEY = "inferview-theme";
  var root = document.documentElement;
  var saved = root.getAttribute("data-theme-saved");
  var choice = saved;
  try {
    if (saved === null) {
      choice = window.localStorage.getItem(KEY);
    } else if (saved === "system") {
      window.localStorage.removeItem(KEY);
    } else {
      window.localStorage.setItem(KEY, saved);
    }
  } catch (e) {
    // storage blocked (private mode): the system setting decides
  }
  if (choice === "light" || choice === "dark") root.setAttribute("data-theme", choice);
})();
