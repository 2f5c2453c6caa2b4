/*
 * live.js: live rounds without reload, and clocks that count down. No framework.
 *
 * (a) Countdowns. Every <time data-ends-at="ISO" data-server-now="ISO"> shows the time
 *     left until data-ends-at, in whole minutes rounded up ("12 min", or H:MM from an
 *     hour), as services/clock.py's minutes_left_text does. The server's clock comes
 *     from the live JSON's "now" (or, before its first answer, the element's
 *     data-server-now), so a phone whose clock is wrong still shows the hall's time.
 *     Pages cached per revision carry only data-ends-at. Optional attributes:
 *     data-minutes="%(minutes)s min" (the translated unit), data-over="Time is up".
 *     Nothing is fetched for this: it is all local.
 *
 * (b) Live parts. An element with an id and data-live="<the event's live URL>" is kept
 *     current: the script polls that tiny JSON (views_live.live) every 15-30 s with
 *     If-None-Match (an unchanged event is a 304), and when the revision moves it fetches
 *     this page again and replaces each [data-live][id] element by the element with the
 *     same id in the fetched page. An element holding the focused element, or a form the
 *     user has typed in, is left alone. A hidden tab polls six times less often and
 *     polls at once when shown again. A replaced element's data-live-announce text, when
 *     it differs from the old one's, is read out by a polite status ("Round 3 pairings
 *     are up").
 *
 * data-live-watch="rounds" on a live element: refresh it only when the event's rounds
 * change (a round published, its clock started or extended, closed), not for every result.
 *
 * Optional: data-live-interval="<seconds>" on a live element (else the JSON's "poll",
 * else 20 s); data-revision="<n>" (the revision the page was built at).
 */
(function () {
  "use strict";

  var DEFAULT_SECONDS = 20;
  var HIDDEN_FACTOR = 6;
  var MAX_SECONDS = 300;

  // --- (a) countdowns ------------------------------------------------------------------

  function format(seconds, element) {
    var minutes = Math.max(0, Math.ceil(seconds / 60));
    if (minutes >= 60) {
      var rest = minutes % 60;
      return Math.floor(minutes / 60) + ":" + (rest < 10 ? "0" : "") + rest;
    }
    var pattern = element.getAttribute("data-minutes") || "%(minutes)s min";
    return pattern.replace("%(minutes)s", String(minutes));
  }

  // Server time minus this device's time, from the live JSON's "now" (see poll); until
  // the first answer, from the page's data-server-now if it has one, else 0.
  var serverOffset = null;

  function offsetOf(element) {
    if (serverOffset !== null) return serverOffset;
    // Read once per element (a replaced element comes from a page rendered just now:
    // its server-now is as good as the first). Cached pages carry none.
    if (element._liveOffset === undefined) {
      var serverNow = Date.parse(element.getAttribute("data-server-now") || "");
      element._liveOffset = isNaN(serverNow) ? 0 : serverNow - Date.now();
    }
    return element._liveOffset;
  }

  function tick() {
    var clocks = document.querySelectorAll("time[data-ends-at]");
    for (var i = 0; i < clocks.length; i++) {
      var element = clocks[i];
      var endsAt = Date.parse(element.getAttribute("data-ends-at"));
      if (isNaN(endsAt)) continue;
      var seconds = (endsAt - (Date.now() + offsetOf(element))) / 1000;
      var over = seconds <= 0;
      var text = over && element.getAttribute("data-over") ? element.getAttribute("data-over") : format(seconds, element);
      if (element.textContent !== text) element.textContent = text;
      element.classList.toggle("is-over", over);
    }
  }

  // --- (b) live parts ------------------------------------------------------------------

  var feeds = {}; // live URL -> {etag, revision, seconds, timer, failures}

  function liveElements() {
    return document.querySelectorAll("[data-live][id]");
  }

  function status() {
    var element = document.getElementById("live-status");
    if (!element) {
      element = document.createElement("p");
      element.id = "live-status";
      element.className = "visually-hidden";
      element.setAttribute("role", "status");
      element.setAttribute("aria-live", "polite");
      document.body.appendChild(element);
    }
    return element;
  }

  function announce(text) {
    if (!text) return;
    var element = status();
    element.textContent = "";
    // A new text node after a tick, so that screen readers notice a repeated message.
    window.setTimeout(function () { element.textContent = text; }, 50);
  }

  function busy(element) {
    var active = document.activeElement;
    if (active && active !== document.body && element.contains(active)) return true;
    return element.querySelector("form[data-live-dirty]") !== null;
  }

  function swap(fetched) {
    var current = liveElements();
    for (var i = 0; i < current.length; i++) {
      var old = current[i];
      var fresh = fetched.getElementById(old.id);
      if (!fresh || busy(old)) continue;
      var said = old.getAttribute("data-live-announce");
      var replacement = document.importNode(fresh, true);
      old.replaceWith(replacement);
      if (window.htmx && window.htmx.process) window.htmx.process(replacement);
      var saying = replacement.getAttribute("data-live-announce");
      if (saying && saying !== said) announce(saying);
    }
    tick();
  }

  function refresh() {
    return fetch(window.location.href, {
      credentials: "same-origin",
      cache: "no-cache",
      headers: { "X-Requested-With": "live.js" }
    }).then(function (response) {
      // A page answered to a POST (a form sent back with its errors) cannot be fetched
      // again: stop polling instead of asking for it at every change.
      if (response.status === 405) { stopped = true; return; }
      if (!response.ok) return;
      return response.text().then(function (html) {
        swap(new DOMParser().parseFromString(html, "text/html"));
      });
    });
  }

  var stopped = false;

  function schedule(url) {
    if (stopped) return;
    var feed = feeds[url];
    window.clearTimeout(feed.timer);
    var seconds = feed.seconds * Math.pow(2, Math.min(feed.failures, 4));
    if (document.hidden) seconds *= HIDDEN_FACTOR;
    seconds = Math.min(seconds, MAX_SECONDS) * (0.9 + Math.random() * 0.2); // no herd
    feed.timer = window.setTimeout(function () { poll(url); }, seconds * 1000);
  }

  function poll(url) {
    var feed = feeds[url];
    window.clearTimeout(feed.timer);
    var headers = {};
    if (feed.etag) headers["If-None-Match"] = feed.etag;
    // no-store: the browser neither answers from its cache nor adds its own validator,
    // so a 304 reaches this script.
    var sent = Date.now();
    fetch(url, { credentials: "same-origin", cache: "no-store", headers: headers })
      .then(function (response) {
        if (response.status === 304) return null;
        if (!response.ok) throw new Error("live: " + response.status);
        feed.etag = response.headers.get("ETag");
        return response.json();
      })
      .then(function (data) {
        feed.failures = 0;
        if (!data) return;
        var now = Date.parse(data.now || "");
        if (!isNaN(now)) {
          serverOffset = now - (sent + Date.now()) / 2; // the server answered mid-way
          tick();
        }
        if (!feed.fixed && data.poll) feed.seconds = data.poll;
        // Parts marked data-live-watch="rounds" (the player's home) follow the rounds
        // only (published, clock started, closed): at a venue every result reported moves
        // the revision, and reloading a page for every other table's result is load
        // nobody reading it needs. A change before the first answer reloads them once.
        var signature = JSON.stringify([data.state, data.rounds]);
        var first = feed.signature === null;
        var moved = feed.revision !== null && data.revision !== feed.revision;
        var roundsMoved = !first && signature !== feed.signature;
        feed.revision = data.revision;
        feed.signature = signature;
        if (moved && (feed.watchAll || first || roundsMoved)) return refresh();
      })
      .catch(function () { feed.failures += 1; })
      .then(function () { schedule(url); });
  }

  function start() {
    var elements = liveElements();
    for (var i = 0; i < elements.length; i++) {
      var url = elements[i].getAttribute("data-live");
      if (!url) continue;
      var all = elements[i].getAttribute("data-live-watch") !== "rounds";
      if (feeds[url]) {
        feeds[url].watchAll = feeds[url].watchAll || all;
        continue;
      }
      var interval = parseFloat(elements[i].getAttribute("data-live-interval"));
      var known = parseInt(elements[i].getAttribute("data-revision"), 10);
      feeds[url] = {
        etag: null,
        revision: isNaN(known) ? null : known,
        seconds: interval > 0 ? interval : DEFAULT_SECONDS,
        fixed: interval > 0,
        watchAll: all,
        signature: null,
        timer: null,
        failures: 0
      };
      // The first poll soon (what changed since the page was built), then every interval.
      (function (url) {
        feeds[url].timer = window.setTimeout(function () { poll(url); }, 1000 + Math.random() * 1000);
      })(url);
    }
  }

  // A form the user typed in is theirs until they send it.
  document.addEventListener("input", function (event) {
    var form = event.target && event.target.form;
    if (form) form.setAttribute("data-live-dirty", "");
  });
  document.addEventListener("submit", function (event) {
    if (event.target && event.target.removeAttribute) event.target.removeAttribute("data-live-dirty");
  });

  document.addEventListener("visibilitychange", function () {
    for (var url in feeds) {
      if (!Object.prototype.hasOwnProperty.call(feeds, url)) continue;
      if (document.hidden) schedule(url);
      else poll(url);
    }
    if (!document.hidden) tick();
  });

  function init() {
    tick();
    window.setInterval(tick, 1000);
    start();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
