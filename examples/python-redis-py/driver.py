"""redis-py's Lock as a lockstep lock driver (docs/lock-protocol.md): JSON requests on stdin, replies on stdout,
logs on stderr. The lock calls are redis-py's own; the driver adds what an application must, as redis-py keeps
no lease of its own: how long it may trust the lock, from before the SET that won, on the monotonic clock."""
import json, queue, sys, threading, time

try:
    import redis
except ImportError:  # Debian's python3-redis, seen from a python3 that is not Debian's (pyenv, a venv)
    sys.path.append("/usr/lib/python3/dist-packages")
    import redis
from redis.exceptions import LockNotOwnedError
from redis.lock import Lock

out = threading.Lock()
client = None
grants = {}  # lockstep's name for a grant -> [its Lock, the monotonic time until which it may be trusted]


def reply(**fields):
    with out:
        sys.stdout.write(json.dumps(fields) + "\n")
        sys.stdout.flush()


class TimedLock(Lock):
    def do_acquire(self, token):  # redis-py's own SET NX PX, its sending time noted: the lease runs from the one that won
        self.sent = time.monotonic()
        return super().do_acquire(token)


def trusted(g, since, ttl_ms):  # how long from now (time.monotonic is CLOCK_MONOTONIC, lockstep's clock) it trusts the grant
    grants[g][1], now = since + ttl_ms / 1000, time.monotonic()
    return {"validityMs": (grants[g][1] - now) * 1000, "monoMs": now * 1000}


def handle(req):
    global client
    op, g = req["op"], req.get("grant")
    if op == "init":
        host, port = req["addresses"][0].rsplit(":", 1)
        client = redis.Redis(host=host, port=int(port))
        client.ping()
        versions = {"python": sys.version.split()[0], "redis-py": redis.__version__}
        return {"protocol": 1, "name": "redis-py Lock", "ops": ["extend"], "versions": versions}
    if op == "acquire":
        lock = TimedLock(client, req["key"], timeout=req["ttlMs"] / 1000, blocking_timeout=req["waitMs"] / 1000)
        if not lock.acquire():
            return {"granted": False}
        grants[g] = [lock, 0]
        return {"granted": True, "secret": lock.local.token.decode(), **trusted(g, lock.sent, req["ttlMs"])}
    try:
        if op == "release":
            grants[g][0].release()
            return {"released": True}
        sent = time.monotonic()
        grants[g][0].extend(req["ttlMs"] / 1000, replace_ttl=True)  # the lease set anew, as the workload's extend means
        return {"extended": True, **trusted(g, sent, req["ttlMs"])}
    except LockNotOwnedError:  # its Lua script found another token under the key
        return {"released": False} if op == "release" else {"extended": False}


def worker(requests):
    while True:  # one lock call at a time, on one thread: redis-py keeps a Lock's token thread-local
        req = requests.get()
        try:
            reply(id=req["id"], **handle(req))
        except Exception as e:  # the outcome is unknown: lockstep records the error
            reply(id=req["id"], error=f"{type(e).__name__}: {e}")


def main():
    requests = queue.Queue()
    threading.Thread(target=worker, args=(requests,), daemon=True).start()
    for line in sys.stdin:  # clock is answered here at once, even while a lock call blocks
        req = json.loads(line)
        reply(id=req["id"], wallMs=time.time() * 1000) if req["op"] == "clock" else requests.put(req)


if __name__ == "__main__":
    main()
