"""The run store in Redis, for server processes on several machines."""

from __future__ import annotations

import secrets
import time

from server.run_store.base import GONE_KEPT, OLDER, SAVED, Opened, RunStore, log

# NOTE: each Redis call below is one Lua script, which Redis runs atomically: the check of the holder
# and the write, or the write and the evictions, cannot interleave with another process's.
# Keys: <p>run:<id> (hash: snapshot user holder lease size), <p>used (sorted set: id by time of use),
# <p>user:<user> (sorted set: the learner's ids by time of use), <p>bytes and <p>ubytes:<user> (counters),
# <p>learners (sorted set: each learner by the bytes they hold; built from the runs once, marked by <p>fair),
# <p>gone (sorted set: the ids evicted last, by time) and <p>gone:why (hash: id -> "room" | "share"),
# <p>epoch (a random token made when the store's data begins: a Redis that restarted empty has none, or another)
# and <p>emptied (when a process that knew the old epoch found it gone).
_LUA_DROP = """
local function held(p, user, delta)
    local left = redis.call('INCRBY', p .. 'ubytes:' .. user, delta)
    if left <= 0 then
        redis.call('DEL', p .. 'ubytes:' .. user)
        redis.call('ZREM', p .. 'learners', user)
    else
        redis.call('ZADD', p .. 'learners', left, user)
    end
end
local function fair(p)
    -- a store written before <p>learners was kept: count every learner's bytes once
    if redis.call('EXISTS', p .. 'fair') == 1 then return end
    redis.call('DEL', p .. 'learners')
    for _, id in ipairs(redis.call('ZRANGE', p .. 'used', 0, -1)) do
        local rec = redis.call('HMGET', p .. 'run:' .. id, 'user', 'size')
        if rec[1] then redis.call('ZINCRBY', p .. 'learners', tonumber(rec[2] or '0'), rec[1]) end
    end
    redis.call('SET', p .. 'fair', '1')
end
local function drop(p, id)
    local key = p .. 'run:' .. id
    local size = tonumber(redis.call('HGET', key, 'size') or '0')
    local user = redis.call('HGET', key, 'user')
    if user then
        redis.call('ZREM', p .. 'user:' .. user, id)
        held(p, user, -size)
    end
    redis.call('ZREM', p .. 'used', id)
    redis.call('DECRBY', p .. 'bytes', size)
    redis.call('DEL', key)
end
local function evicted(p, id, why, now, gone_kept)
    drop(p, id)
    redis.call('ZADD', p .. 'gone', now, id)
    redis.call('HSET', p .. 'gone:why', id, why)
    local extra = redis.call('ZCARD', p .. 'gone') - gone_kept
    if extra > 0 then
        for _, old in ipairs(redis.call('ZRANGE', p .. 'gone', 0, extra - 1)) do
            redis.call('HDEL', p .. 'gone:why', old)
        end
        redis.call('ZREMRANGEBYRANK', p .. 'gone', 0, extra - 1)
    end
end
local function epoch(p, known, fresh, now)
    -- the store's epoch; a process that knew another one has just seen Redis lose its data
    local current = redis.call('GET', p .. 'epoch')
    if not current then
        redis.call('SET', p .. 'epoch', fresh)
        current = fresh
    end
    if known ~= '' and known ~= current then redis.call('SET', p .. 'emptied', now) end
    return current
end
local function oldest(zset, keep)
    for _, id in ipairs(redis.call('ZRANGE', zset, 0, 1)) do
        if id ~= keep then return id end
    end
    return nil
end
local function fairest(p, keep)
    -- the least recently used run of the learner holding the most bytes (ties: whose last use is oldest)
    local best, best_bytes, best_last
    local rank = 0
    while true do
        local row = redis.call('ZREVRANGE', p .. 'learners', rank, rank, 'WITHSCORES')
        if #row == 0 then break end
        local bytes = tonumber(row[2])
        if best and bytes < best_bytes then break end
        local ukey = p .. 'user:' .. row[1]
        local victim = oldest(ukey, keep)
        if victim then
            local last = tonumber(redis.call('ZREVRANGE', ukey, 0, 0, 'WITHSCORES')[2])
            if not best or last < best_last then best, best_bytes, best_last = victim, bytes, last end
        end
        rank = rank + 1
        if best and rank >= 64 then break end  -- ties among more learners than this go by rank
    end
    return best
end
local function evict(p, keep, user, user_bytes, max_bytes, now, gone_kept)
    local ukey = p .. 'user:' .. user
    while tonumber(redis.call('GET', p .. 'ubytes:' .. user) or '0') > user_bytes do
        local victim = oldest(ukey, keep)
        if not victim then break end
        evicted(p, victim, 'share', now, gone_kept)
    end
    while tonumber(redis.call('GET', p .. 'bytes') or '0') > max_bytes do
        local victim = fairest(p, keep)
        if not victim then break end
        evicted(p, victim, 'room', now, gone_kept)
    end
end
"""
_LUA_SAVE = _LUA_DROP + """
local p, id, blob, user, holder, lease, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local user_bytes, max_bytes, replaces = tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10]
local known, fresh, gone_kept = ARGV[11], ARGV[12], tonumber(ARGV[13])
local e = epoch(p, known, fresh, now)
fair(p)
local key = p .. 'run:' .. id
local current = redis.call('HGET', key, 'holder')
if current and current ~= holder and current ~= replaces then return {'taken', e} end
if current then drop(p, id) end
redis.call('HSET', key, 'snapshot', blob, 'size', #blob, 'user', user, 'holder', holder, 'lease', lease)
redis.call('INCRBY', p .. 'bytes', #blob)
held(p, user, #blob)
redis.call('ZADD', p .. 'user:' .. user, now, id)
redis.call('ZADD', p .. 'used', now, id)
redis.call('ZREM', p .. 'gone', id)
redis.call('HDEL', p .. 'gone:why', id)
evict(p, id, user, user_bytes, max_bytes, now, gone_kept)
return {'saved', e}
"""
_LUA_OPEN = _LUA_DROP + """
local p, id, user, holder, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local user_bytes, max_bytes = tonumber(ARGV[6]), tonumber(ARGV[7])
local known, fresh, gone_kept = ARGV[8], ARGV[9], tonumber(ARGV[10])
local e = epoch(p, known, fresh, now)
fair(p)
local key = p .. 'run:' .. id
local rec = redis.call('HMGET', key, 'snapshot', 'user')
if not rec[1] then return {e} end
redis.call('ZADD', p .. 'used', now, id)
redis.call('ZADD', p .. 'user:' .. rec[2], now, id)
if rec[2] ~= user then return {e, rec[1], 0} end  -- another learner's run: a copy for them, the run stays
redis.call('HSET', key, 'holder', holder, 'lease', 0)
evict(p, id, user, user_bytes, max_bytes, now, gone_kept)
return {e, rec[1], 1}
"""

# Shared records (a class's, base.py `put`): <p>rec:<n>:<table><key> (a string, n = len(table), so no table name
# and key can spell another's) with a TTL of its own, <p>recs:<table> (sorted set: the table's keys by the
# time each expires) and <p>recver:<table> (sorted set: the keys of the records put with a version, by it; one of a
# key no longer live is ignored). The TTLs are Redis's garbage collection; what is live is read from the scores, by
# the process's clock, as in the other backends.
_LUA_RECORDS = """
local function sweep(index, now)
    redis.call('ZREMRANGEBYSCORE', index, '-inf', now)
end
local function keep(index, key, ends, now)
    redis.call('ZADD', index, ends, key)
    local last = tonumber(redis.call('ZREVRANGE', index, 0, 0, 'WITHSCORES')[2])
    redis.call('PEXPIRE', index, math.max(1, math.ceil((last - now) * 1000)))
end
"""
_LUA_PUT = _LUA_RECORDS + """
local index, versions, key, rec, value = KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3]
local ends, now, version = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
sweep(index, now)
if version ~= '' then
    -- a live record of this version or a newer one stays (the compare and the write are one step: this script)
    local there = redis.call('ZSCORE', versions, key)
    if there and redis.call('ZSCORE', index, key) and tonumber(there) >= tonumber(version) then return 0 end
end
redis.call('SET', rec, value, 'PX', math.max(1, math.ceil((ends - now) * 1000)))
keep(index, key, ends, now)
if version ~= '' then
    redis.call('ZADD', versions, version, key)
    redis.call('PEXPIRE', versions, math.max(1, redis.call('PTTL', index)))  -- as long as the index
else
    redis.call('ZREM', versions, key)
end
return 1
"""
_LUA_COUNT_UP = _LUA_RECORDS + """
local index, key, rec = KEYS[1], ARGV[1], ARGV[2]
local ends, now = tonumber(ARGV[3]), tonumber(ARGV[4])
sweep(index, now)
if not redis.call('ZSCORE', index, key) then redis.call('DEL', rec) end  -- expired by the clock, not yet by Redis
local count = redis.call('INCR', rec)
if count == 1 then
    redis.call('PEXPIRE', rec, math.max(1, math.ceil((ends - now) * 1000)))
    keep(index, key, ends, now)
end
return count
"""
_LUA_READ = _LUA_RECORDS + """
local index, base, now = KEYS[1], ARGV[1], tonumber(ARGV[2])
sweep(index, now)
local keys = redis.call('ZRANGE', index, 0, -1)
local out = {}
for _, key in ipairs(keys) do
    local value = redis.call('GET', base .. key)
    if value then
        out[#out + 1] = key
        out[#out + 1] = value
    end
end
return out
"""


class RedisRunStore(RunStore):
    """The same store in Redis, for server processes on several machines (``redis://host:6379/0``).

    Give the runs a Redis of their own or a prefix (``?prefix=``), and do not let Redis evict keys
    itself (``maxmemory-policy noeviction``, Debian's default): this store keeps its own bound.

    A call waits at most ``timeout`` seconds for Redis (redis-py's default retries a failed connection ten
    times, seconds in all, while the page's tick waits) and retries once on a fresh connection (a Redis
    that restarted closed the old one); past that the guard takes over (server/run_store/base.py).
    """

    def __init__(self, url: str, *args, prefix: str = "autograd-explorer:", timeout: float = 2.0, **kwargs):
        super().__init__(*args, **kwargs)
        # NOTE: imported here, as only a Redis deployment needs the package (a SQLite one runs without it).
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self.url = url
        self.where = f"Redis at {url}"
        self.prefix = prefix
        self.faults = (redis.RedisError, OSError)
        self._refused = redis.ResponseError
        self._redis = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout,
                                           retry=Retry(NoBackoff(), 1))
        self._epoch = ""  # the store's epoch as this process last saw it
        self._persistence_checked = False
        self._save_script = self._redis.register_script(_LUA_SAVE)
        self._open_script = self._redis.register_script(_LUA_OPEN)
        self._put_script = self._redis.register_script(_LUA_PUT)
        self._count_script = self._redis.register_script(_LUA_COUNT_UP)
        self._read_script = self._redis.register_script(_LUA_READ)

    def _save(self, run_id, blob, user, holder, lease_until, replaces):
        self._check_persistence()
        args = [self.prefix, run_id, blob, user, holder, repr(lease_until), repr(self.clock()),
                self.user_bytes, self.max_bytes, replaces, self._epoch, secrets.token_hex(8), GONE_KEPT]
        done, self._epoch = (part.decode() for part in self._save_script(args=args))
        return done

    def _open(self, run_id, user, holder, now):
        args = [self.prefix, run_id, user, holder, repr(now), self.user_bytes, self.max_bytes, self._epoch,
                secrets.token_hex(8), GONE_KEPT]
        found = self._open_script(args=args)
        self._epoch = found[0].decode()
        return None if len(found) == 1 else Opened(bytes(found[1]), owned=bool(found[2]))

    def _why(self, run_id):
        why, emptied = self._redis.hget(f"{self.prefix}gone:why", run_id), self._redis.get(f"{self.prefix}emptied")
        history = None
        if emptied is not None:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(emptied)))
            history = f"the run store (Redis) started again empty at {when}"
        return (why.decode() if why else None), history

    def _check_persistence(self) -> None:
        """Once: warns if this Redis keeps no append-only file (its restart would lose every run)."""
        if self._persistence_checked:
            return
        try:
            appendonly = self._redis.config_get("appendonly").get("appendonly")
        except self._refused:  # CONFIG may be renamed away (a managed Redis): nothing to say then
            appendonly = None
        self._persistence_checked = True
        if appendonly == "no":
            log.warning("run store %s keeps no append-only file (appendonly no): a restart of Redis loses every run "
                        "(README, 'Serving a class': appendonly yes, appendfsync everysec)", self.where)

    def _record_keys(self, table: str) -> tuple[str, str]:
        """The table's index, and the prefix of its records' keys."""
        return f"{self.prefix}recs:{table}", f"{self.prefix}rec:{len(table)}:{table}"

    def _put(self, table, key, value, expires_at, now, version=None):
        index, base = self._record_keys(table)
        done = self._put_script(keys=[index, f"{self.prefix}recver:{table}"],
                                args=[key, base + key, value, repr(expires_at), repr(now),
                                      "" if version is None else str(int(version))])
        return SAVED if int(done) else OLDER

    def _records(self, table, now):
        index, base = self._record_keys(table)
        flat = self._read_script(keys=[index], args=[base, repr(now)])
        return {flat[i].decode(): bytes(flat[i + 1]) for i in range(0, len(flat), 2)}

    def _record(self, table, key, now):
        index, base = self._record_keys(table)
        ends, value = self._redis.pipeline().zscore(index, key).get(base + key).execute()
        return None if ends is None or float(ends) <= now or value is None else bytes(value)

    def _count_up(self, table, key, expires_at, now):
        index, base = self._record_keys(table)
        return int(self._count_script(keys=[index], args=[key, base + key, repr(expires_at), repr(now)]))

    def _latest(self, user):
        found = self._redis.zrevrange(f"{self.prefix}user:{user}", 0, 0)
        return found[0].decode() if found else None

    def _get(self, run_id):
        return self._redis.hget(f"{self.prefix}run:{run_id}", "snapshot")

    def _size(self):
        return int(self._redis.get(f"{self.prefix}bytes") or 0)

    def _user_size(self, user):
        return int(self._redis.get(f"{self.prefix}ubytes:{user}") or 0)

    def _count(self):
        return int(self._redis.zcard(f"{self.prefix}used"))

    def _reset(self) -> None:
        self._redis.connection_pool.disconnect()

    def close(self) -> None:
        self._redis.close()
