"""config.middleware.CompressionMiddleware: fast gzip with BREACH padding."""

import gzip

from django.http import HttpResponse
from django.test import RequestFactory

from config.middleware import CompressionMiddleware

BODY = ("<tr><td>1</td><td>Player name</td><td>9</td></tr>" * 400).encode()


def _answer(response, accept="gzip, deflate, br"):
    request = RequestFactory().get("/", HTTP_ACCEPT_ENCODING=accept)
    return CompressionMiddleware(lambda r: response)(request)


def test_compresses_with_a_random_name_and_weakens_a_strong_etag():
    sizes = set()
    for _ in range(20):
        response = HttpResponse(BODY)
        response["ETag"] = '"abc"'
        answer = _answer(response)
        assert answer["Content-Encoding"] == "gzip"
        assert answer["Vary"] == "Accept-Encoding"
        assert answer["ETag"] == 'W/"abc"'
        assert int(answer["Content-Length"]) == len(answer.content) < len(BODY) // 10
        assert gzip.decompress(answer.content) == BODY
        assert answer.content[3] & gzip.FNAME
        sizes.add(len(answer.content))
    assert len(sizes) > 1  # the padding varies the length


def test_leaves_small_precompressed_and_refused_answers_alone():
    small = _answer(HttpResponse(b"short"))
    assert small.content == b"short"
    assert not small.has_header("Content-Encoding")
    done = HttpResponse(gzip.compress(BODY))
    done["Content-Encoding"] = "gzip"
    assert _answer(done).content == done.content
    plain = _answer(HttpResponse(BODY), accept="identity")
    assert plain.content == BODY
    assert plain["Vary"] == "Accept-Encoding"
    assert not plain.has_header("Content-Encoding")
