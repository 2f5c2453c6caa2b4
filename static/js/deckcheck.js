/* Counting a player's cards on the deck-check page: + and - buttons beside each number
   (big enough to tap on a phone), the card's row marked when it differs from the
   registered count, and running totals of deck and sideboard against the registered
   sizes. Without this script the page works the same with the number inputs alone. */
(function () {
  "use strict";
  function setUp(form) {
    var inputs = Array.prototype.slice.call(form.querySelectorAll("input[data-count]"));
    var totals = form.querySelector("[data-deckcheck-totals]");
    function value(input) {
      var number = parseInt(input.value, 10);
      return isNaN(number) ? 0 : number;
    }
    function update() {
      var sums = { main: 0, side: 0 };
      var registered = { main: 0, side: 0 };
      inputs.forEach(function (input) {
        var section = /_side$/.test(input.name) ? "side" : "main";
        sums[section] += value(input);
        registered[section] += parseInt(input.defaultValue, 10) || 0;
      });
      form.querySelectorAll("[data-card]").forEach(function (card) {
        var changed = Array.prototype.some.call(card.querySelectorAll("input[data-count]"), function (input) {
          return value(input) !== (parseInt(input.defaultValue, 10) || 0);
        });
        card.classList.toggle("is-changed", changed);
      });
      if (totals) {
        ["main", "side"].forEach(function (section) {
          var shown = totals.querySelector('[data-total="' + section + '"]');
          if (shown) shown.textContent = String(sums[section]);
        });
        totals.classList.toggle("is-off", sums.main !== registered.main || sums.side !== registered.side);
        totals.hidden = false;
      }
    }
    form.querySelectorAll("button[data-step]").forEach(function (button) {
      var input = document.getElementById(button.getAttribute("aria-controls"));
      if (!input) return;
      button.hidden = false;
      button.addEventListener("click", function () {
        var step = parseInt(button.getAttribute("data-step"), 10);
        var max = parseInt(input.max, 10);
        var next = Math.max(0, value(input) + step);
        if (!isNaN(max)) next = Math.min(max, next);
        input.value = String(next);
        input.dispatchEvent(new Event("input", { bubbles: true }));
      });
    });
    form.addEventListener("input", update);
    update();
  }
  function start() {
    document.querySelectorAll("form[data-deckcheck]").forEach(setUp);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
