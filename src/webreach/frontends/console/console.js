// webreach console: drag and drop for the engine orders, and a Copy button beside a new agent key. Progressive
// enhancement only: every order can be changed with its buttons (keyboard and mouse) without this script, and a
// key can be selected and copied by hand (the Copy button stays hidden without it). A drop writes the new order into the form's hidden
// "order" field and submits it with action "set"; the server checks the names like any other change.
"use strict";
document.querySelectorAll("form.order-form").forEach(function (form) {
  var list = form.querySelector("ol.order");
  if (!list) { return; }
  var dragged = null;
  list.querySelectorAll("li").forEach(function (item) {
    item.draggable = true;
    item.classList.add("draggable");
    item.addEventListener("dragstart", function (event) {
      dragged = item;
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", item.dataset.name);
    });
    item.addEventListener("dragover", function (event) {
      if (!dragged || dragged === item) { return; }
      event.preventDefault();
      var box = item.getBoundingClientRect();
      var after = event.clientY > box.top + box.height / 2;
      list.insertBefore(dragged, after ? item.nextSibling : item);
    });
  });
  list.addEventListener("drop", function (event) {
    if (!dragged) { return; }
    event.preventDefault();
    dragged = null;
    var names = Array.prototype.map.call(list.querySelectorAll("li"), function (li) { return li.dataset.name; });
    form.querySelector("input[name=order]").value = names.join(",");
    var action = document.createElement("input");
    action.type = "hidden";
    action.name = "action";
    action.value = "set";
    form.appendChild(action);
    form.submit();
  });
});
document.querySelectorAll("button.copy").forEach(function (button) {
  var field = document.getElementById(button.dataset.copy);
  var said = button.parentNode.querySelector("[aria-live]");
  if (!field) { return; }
  button.hidden = false;
  button.addEventListener("click", function () {
    field.select();
    var done = function () { if (said) { said.textContent = "Copied."; } };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
    } else {
      document.execCommand("copy");
      done();
    }
  });
});
