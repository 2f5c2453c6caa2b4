"""Django's Redis cache, with one redis-py client per connection pool.

Django's ``RedisCacheClient`` builds a new ``redis.Redis`` object for every cache call, and
each one copies redis-py's table of ~170 response callbacks: on a page that makes four
cache reads (the session, the page's rows, the viewer's own row, the summary) that was a
measurable share of the request. A client over a connection pool is safe to share between
the threads of a worker, so it is made once per pool instead.
"""

from __future__ import annotations

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class ReusedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._client(connection_pool=self._get_connection_pool(write))
            self._clients[index] = client
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient
