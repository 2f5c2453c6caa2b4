// The game-by-game result form (tournaments/_game_fields.html): show only the numbers the
// chosen ending needs (tournaments/forms.py NEEDS). Without this script every field shows
// and every number is optional; the form sends the engine only the ones it needs.
(function () {
  "use strict";

  // ending -> the groups it needs; a time-out needs HP only where more HP wins.
  function needs(end, timeoutPolicy) {
    switch (end) {
      case "hp_zero":
      case "deck_empty":
      case "simultaneous":
        return ["hp", "deck"];
      case "time":
        return timeoutPolicy === "draw" ? [] : ["hp"];
      case "concession":
        return ["conceded"];
      default:
        return [];
    }
  }

  function update(fieldset, timeoutPolicy) {
    var select = fieldset.querySelector("select[name$='_end']");
    var wanted = needs(select ? select.value : "", timeoutPolicy);
    fieldset.querySelectorAll("[data-needs]").forEach(function (group) {
      group.hidden = wanted.indexOf(group.getAttribute("data-needs")) === -1;
    });
  }

  function setUp(root) {
    root.querySelectorAll(".game-fields").forEach(function (fields) {
      if (fields.dataset.ready) return;
      fields.dataset.ready = "1";
      var policy = fields.getAttribute("data-timeout-policy") || "";
      fields.querySelectorAll("fieldset[data-game]").forEach(function (fieldset) {
        update(fieldset, policy);
        fieldset.addEventListener("change", function (event) {
          if (event.target.matches("select[name$='_end']")) update(fieldset, policy);
        });
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { setUp(document); });
  } else {
    setUp(document);
  }
})();
