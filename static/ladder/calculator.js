// The calculator updates as you type: it asks the same server view with the form's query string
// and swaps in the result and the field errors. The server stays the only place that computes;
// without JavaScript the form is a plain GET form and works the same.
(function () {
  "use strict";
  var form = document.getElementById("calculator");
  if (!form || !window.fetch || !window.DOMParser) return;
  form.classList.add("js");
  var latest = 0;
  var timer = null;

  function showMode() {
    var checked = form.querySelector("input[name=mode]:checked");
    var mode = checked ? checked.value : "single";
    form.setAttribute("data-mode", mode);
    var method = form.querySelector("input[name=method]:checked");
    if (method) form.setAttribute("data-method", method.value);
  }

  function query() {
    var params = new URLSearchParams();
    new FormData(form).forEach(function (value, key) { params.append(key, value); });
    return params.toString();
  }

  function swap(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    ["calc-result", "k-advice"].forEach(function (id) {
      var fresh = doc.getElementById(id);
      var current = document.getElementById(id);
      // Unchanged parts stay as they are, so a link that has the keyboard focus keeps it.
      if (fresh && current && current.innerHTML !== fresh.innerHTML) {
        current.innerHTML = fresh.innerHTML;
      }
    });
    form.querySelectorAll("[data-errors-for]").forEach(function (slot) {
      var name = slot.getAttribute("data-errors-for");
      var other = doc.querySelector('[data-errors-for="' + name + '"]');
      var text = other ? other.textContent : "";
      slot.textContent = text;
      var box = slot.closest(".field");
      if (box) box.classList.toggle("has-error", text.trim() !== "");
      var input = form.querySelector('[name="' + name + '"]');
      if (input && input.type !== "radio") {
        var ids = (input.getAttribute("aria-describedby") || "").split(" ").filter(function (id) {
          return id && id !== slot.id;
        });
        if (text.trim()) {
          input.setAttribute("aria-invalid", "true");
          ids.unshift(slot.id);
        } else {
          input.removeAttribute("aria-invalid");
        }
        if (ids.length) input.setAttribute("aria-describedby", ids.join(" "));
        else input.removeAttribute("aria-describedby");
      }
    });
    form.setAttribute("data-state", "ready");
  }

  function update() {
    var ticket = ++latest;
    var qs = query();
    form.setAttribute("data-state", "loading");
    fetch(form.action + "?" + qs, { headers: { "X-Requested-With": "fetch" } })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        if (ticket !== latest) return; // a newer request is on its way
        swap(html);
        if (window.history && history.replaceState) history.replaceState(null, "", "?" + qs);
      })
      .catch(function () { form.setAttribute("data-state", "offline"); });
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(update, 150);
  }

  form.addEventListener("input", function (event) {
    if (event.target.name === "k_other" && event.target.value !== "") {
      var other = form.querySelector('input[name=k_preset][value="other"]');
      if (other) other.checked = true;
    }
    showMode();
    schedule();
  });
  form.addEventListener("change", function () { showMode(); schedule(); });
  form.addEventListener("submit", function (event) { event.preventDefault(); update(); });
  showMode();
})();
