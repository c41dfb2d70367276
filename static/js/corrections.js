// "Report a mistake": fill the passage from the reader's selection. Without this script the
// form still works: the reader pastes the passage. Only a selection inside the page's text
// ([data-correction-source]) counts; on a guide, it also picks the item it was made in.
(function () {
  "use strict";
  var form = document.querySelector("form.js-correction");
  if (!form) return;
  var quote = form.querySelector("textarea[name=quote]");
  var itemSelect = form.querySelector("select[name=target_id]");

  function sourceOf(node) {
    var el = node && (node.nodeType === 1 ? node : node.parentElement);
    return el ? el.closest("[data-correction-source]") : null;
  }

  function take() {
    var selection = window.getSelection();
    if (!selection || selection.isCollapsed || selection.rangeCount === 0) return;
    var range = selection.getRangeAt(0);
    var source = sourceOf(range.commonAncestorContainer);
    if (!source) return;
    var text = selection.toString().replace(/\s+/g, " ").trim();
    if (!text) return;
    quote.value = text.slice(0, 1000);
    if (itemSelect) {
      var item = sourceOf(range.startContainer);
      var holder = item && item.closest("[data-guide-item]");
      if (holder) itemSelect.value = holder.getAttribute("data-guide-item");
    }
  }

  document.addEventListener("mouseup", take);
  document.addEventListener("keyup", take);
  document.addEventListener("selectionchange", function () {
    window.clearTimeout(take.timer);
    take.timer = window.setTimeout(take, 150);
  });
})();
