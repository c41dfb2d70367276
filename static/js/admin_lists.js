// Add, remove and reorder rows of the list editors (questions/admin_fields.py ListWidget).
// Each row is plain inputs with a repeated name, so the server reads them in page order.
(function () {
  "use strict";
  function renumber(list, noun) {
    list.querySelectorAll(".list-row").forEach(function (row, i) {
      var name = noun + " " + (i + 1);
      row.querySelector(".list-up").setAttribute("aria-label", "Move " + name + " up");
      row.querySelector(".list-down").setAttribute("aria-label", "Move " + name + " down");
      row.querySelector(".list-remove").setAttribute("aria-label", "Remove " + name);
    });
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest(".list-editor button");
    if (!button) return;
    var editor = button.closest(".list-editor");
    var list = editor.querySelector(".list-editor-rows");
    var row = button.closest(".list-row");
    if (button.classList.contains("list-add")) {
      var last = list.querySelector(".list-row:last-child");
      var copy = last.cloneNode(true);
      copy.querySelectorAll("input").forEach(function (input) { input.value = ""; });
      list.appendChild(copy);
      copy.querySelector("input").focus();
    } else if (button.classList.contains("list-remove")) {
      if (list.children.length > 1) row.remove();
      else row.querySelectorAll("input").forEach(function (input) { input.value = ""; });
    } else if (button.classList.contains("list-up") && row.previousElementSibling) {
      list.insertBefore(row, row.previousElementSibling);
      button.focus();
    } else if (button.classList.contains("list-down") && row.nextElementSibling) {
      list.insertBefore(row.nextElementSibling, row);
      button.focus();
    }
    renumber(list, editor.getAttribute("data-noun") || "row");
  });

  // Django's autocomplete (select2) adds a search box with no name of its own; give it
  // its field's label, as a screen reader (and axe's "label" rule) needs. Select2 builds
  // the box after this script runs and again when a selection changes, so watch for it.
  function nameSearchBoxes() {
    document.querySelectorAll(".select2-search__field:not([aria-label])").forEach(function (box) {
      var container = box.closest(".select2-container");
      var select = container && container.previousElementSibling;
      var label = select && select.id && document.querySelector('label[for="' + select.id + '"]');
      if (label) box.setAttribute("aria-label", "Search " + label.textContent.replace(/:\s*$/, ""));
    });
  }
  window.addEventListener("load", function () {
    nameSearchBoxes();
    new MutationObserver(nameSearchBoxes).observe(document.body, { childList: true, subtree: true });
  });
})();
