/* The penalty form on a player's page: when the judge picks an infraction, show the
   penalty suggested for this player (and why, for a repeat) and name it in the penalty
   select's "suggested" choice. Without this script the form works the same: the
   suggestion is applied by the server when the penalty is left on "suggested". */
(function () {
  "use strict";
  function setUp(form) {
    var infraction = form.querySelector("[data-penalty-infraction]");
    var kind = form.querySelector("[data-penalty-kind]");
    var box = form.querySelector("[data-penalty-suggestion]");
    if (!infraction || !kind || !box) return;
    var suggestedOption = kind.querySelector('option[value=""]');
    var plainLabel = suggestedOption ? suggestedOption.textContent : "";
    function update() {
      var option = infraction.options[infraction.selectedIndex];
      var text = option ? option.getAttribute("data-suggestion") : null;
      var suggestedLabel = option ? option.getAttribute("data-suggested-label") : null;
      var line = box.querySelector("[data-penalty-suggestion-text]") || box;
      line.textContent = text || "";
      box.hidden = !text;
      if (suggestedOption) {
        suggestedOption.textContent = suggestedLabel || plainLabel;
      }
    }
    infraction.addEventListener("change", update);
    update();
  }
  function start() {
    document.querySelectorAll("form.penalty-form").forEach(setUp);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
