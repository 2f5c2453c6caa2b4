"""Locust users for ``bench/venue_load.py`` (read it first); one mode per Locust run.

The run is described by the JSON file named in ``VENUE_CONFIG`` (written by venue_load.py):

* ``login``: users take players off a queue, GET ``/accounts/login/`` for the CSRF token
  and POST the form; the session and CSRF cookies go to ``<out>.sessions.json``
  (``login.sessions.json`` beside ``out``). Ends when the queue is empty.
* ``read``: user *i* is signed-in player *i* (signed out with ``anonymous``) and GETs
  ``path`` in a closed loop, no think time, ``Accept-Encoding: gzip``, redirects not
  followed; ``random_page`` N adds ``?page=`` 1…N; ``conditional`` sends
  ``If-None-Match`` with the ETag last received.
* ``burst``: users take tables off a queue; for each, player 1 POSTs the report (games,
  ``expected_version``) and player 2 the confirmation (the version of the report's answer),
  each with their own session cookie and the CSRF cookie + ``X-CSRFToken`` header. Ends when
  the queue is empty.

A request counts as an error unless its status is 2xx or 3xx; a redirect to the login page
is an error too (the session was not accepted), and so is a read still unanswered when Locust
gives up waiting (``--stop-timeout``): it is recorded as ``unfinished at stop`` with the time
waited so far. Every request is written to ``out`` as
``[name, start, ms, status, ok, wire bytes, body bytes, error]`` when Locust quits, so
venue_load.py computes exact percentiles (Locust's own CSVs round them).

Run alone (for debugging): ``VENUE_CONFIG=cfg.json .venv/bin/locust -f bench/venue_locust.py
--headless -u 10 -r 10 -t 15s --host http://127.0.0.1:8765``.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import time
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import gevent
from gevent import GreenletExit
from gevent.queue import Empty, Queue
from locust import FastHttpUser, constant, events, task
from locust.exception import StopUser

CONFIG = json.loads(Path(os.environ["VENUE_CONFIG"]).read_text())
MODE = CONFIG["mode"]
RECORDS: list[list] = []
NUMBERS = itertools.count()
SIGNED_IN: dict[str, dict] = {}
QUEUE: Queue = Queue()
for item in CONFIG.get("logins", []) if MODE == "login" else CONFIG.get("tables", []):
    QUEUE.put(item)
FINISHED = itertools.count(1)
CSRF_INPUT = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')


@events.request.add_listener
def record(name, start_time, response_time, response, exception, response_length, **_):
    status = getattr(response, "status_code", 0) or 0
    wire = None
    headers = getattr(response, "headers", None)
    if headers is not None:
        length = headers.get("content-length")
        wire = int(length) if length and length.isdigit() else None
    error = None if exception is None else str(exception)[:120]
    RECORDS.append(
        [name, start_time, response_time, status, exception is None, wire, response_length, error]
    )


@events.quitting.add_listener
def write_records(**_):
    out = Path(CONFIG["out"])
    out.write_text(json.dumps(RECORDS))
    if MODE == "login":
        out.with_name("login.sessions.json").write_text(json.dumps(SIGNED_IN))


def judge(response, expected=None) -> None:
    """Mark a ``catch_response`` response: 2xx/3xx pass, except a redirect to the login
    page; ``expected`` (a status) narrows it."""
    status = response.status_code or 0
    location = response.headers.get("location", "") if response.headers else ""
    if (expected is not None and status != expected) or not 200 <= status < 400:
        response.failure(f"HTTP {status}")
    elif 300 <= status < 400 and "/accounts/login/" in location:
        response.failure("redirected to the login page")
    else:
        response.success()


def cookies_of(response) -> dict:
    found = {}
    for header in response.headers.getlist("set-cookie") if response.headers else []:
        jar = SimpleCookie()
        jar.load(header)
        found.update({key: morsel.value for key, morsel in jar.items()})
    return found


class VenueUser(FastHttpUser):
    wait_time = constant(0)  # closed loop: the next request as soon as the answer is in
    network_timeout = 600.0
    connection_timeout = 60.0

    def on_start(self):
        self.client.client.cookiejar = None  # cookies are sent by hand: one player per user
        self.number = next(NUMBERS)
        self.etags: dict[str, str] = {}
        if MODE == "read":
            players = CONFIG["players"]
            player = players[self.number % len(players)]
            self.cookie = f"sessionid={player['sessionid']}"
            if player.get("csrftoken"):
                self.cookie += f"; csrftoken={player['csrftoken']}"

    def finish(self):
        """The queue is empty: stop this user; the last one stops the run."""
        if next(FINISHED) >= CONFIG["users"]:
            gevent.spawn_later(0.2, self.environment.runner.quit)
        raise StopUser()

    @task
    def work(self):
        if MODE == "read":
            self.read()
        elif MODE == "login":
            self.login()
        else:
            self.report_and_confirm()

    # --- read -----------------------------------------------------------------------------

    def read(self):
        url = CONFIG["path"]
        if CONFIG.get("random_page"):
            url += f"?page={random.randint(1, CONFIG['random_page'])}"
        headers = {"Accept-Encoding": "gzip"}
        if not CONFIG.get("anonymous"):
            headers["Cookie"] = self.cookie
        if CONFIG.get("conditional") and url in self.etags:
            headers["If-None-Match"] = self.etags[url]
        started, clock = time.time(), time.perf_counter()
        try:
            with self.client.get(
                url,
                name=CONFIG["name"],
                headers=headers,
                allow_redirects=False,
                catch_response=True,
            ) as response:
                judge(response)
                etag = response.headers.get("etag") if response.headers else None
                if etag:
                    self.etags[url] = etag
        except GreenletExit:
            # Stopped by Locust after --stop-timeout with the answer still outstanding: an
            # error, with the time waited so far (a lower bound) as its response time.
            waited = (time.perf_counter() - clock) * 1000
            RECORDS.append(
                [CONFIG["name"], started, waited, 0, False, None, 0, "unfinished at stop"]
            )
            raise

    # --- login ----------------------------------------------------------------------------

    def login(self):
        try:
            player = QUEUE.get_nowait()
        except Empty:
            self.finish()
        with self.client.get(
            "/accounts/login/",
            name="GET /accounts/login/",
            headers={"Accept-Encoding": "gzip"},
            allow_redirects=False,
            catch_response=True,
        ) as response:
            judge(response, 200)
            csrf = cookies_of(response).get("csrftoken")
            found = CSRF_INPUT.search(response.content or b"")
        if not csrf:
            return
        form = {
            "username": player["username"],
            "password": player["password"],
            "csrfmiddlewaretoken": found.group(1).decode() if found else csrf,
            "next": "",
        }
        with self.client.post(
            "/accounts/login/",
            name="POST /accounts/login/",
            data=urlencode(form),
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Cookie": f"csrftoken={csrf}",
                "Accept-Encoding": "gzip",
            },
            allow_redirects=False,
            catch_response=True,
        ) as response:
            judge(response, 302)
            cookies = cookies_of(response)
            if response.status_code == 302 and cookies.get("sessionid"):
                SIGNED_IN[player["username"]] = {
                    "sessionid": cookies["sessionid"],
                    "csrftoken": cookies.get("csrftoken", csrf),
                }

    # --- the write burst ------------------------------------------------------------------

    def _post(self, name, url, session, payload):
        csrf = CONFIG["csrf"]
        with self.client.post(
            url,
            name=name,
            json=payload,
            headers={
                "Cookie": f"sessionid={session}; csrftoken={csrf}",
                "X-CSRFToken": csrf,
                "Accept-Encoding": "gzip",
            },
            allow_redirects=False,
            catch_response=True,
        ) as response:
            judge(response, 200)
            if response.status_code == 200:
                return json.loads(response.content)
        return None

    def report_and_confirm(self):
        try:
            table = QUEUE.get_nowait()
        except Empty:
            self.finish()
        base = f"/api/v1/events/{CONFIG['event']}/matches/{table['match']}"
        reported = self._post(
            "POST report",
            f"{base}/report/",
            table["session1"],
            {"games": table["games"], "expected_version": table["version"]},
        )
        if reported is None:
            return
        self._post(
            "POST confirm",
            f"{base}/confirm/",
            table["session2"],
            {"expected_version": reported["version"]},
        )
