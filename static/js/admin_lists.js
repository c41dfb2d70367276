// Add, remove and reorder rows of the list editors (questions/admin_fields.py ListWidget).
// Each row is plain inputs with a repeated name, so the server reads them in page order.
(function () {
  "use strict";
  function renumber(list) {
    list.querySelectorAll(".list-row").forEach(function (row, i) {
      row.querySelector(".list-up").setAttribute("aria-label", "Move row " + (i + 1) + " up");
      row.querySelector(".list-down").setAttribute("aria-label", "Move row " + (i + 1) + " down");
      row.querySelector(".list-remove").setAttribute("aria-label", "Remove row " + (i + 1));
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
    renumber(list);
  });
})();
