"""triton.runtime.cache for the drop-in: Triton's file cache API over a directory, and
triton_key(), the version key of the compiler (here: tilec's).

In:  keys (hex digests) and files to keep. Out: paths under `knobs.cache.dir` (default
<TRITON_HOME or ~>/.triton/cache), written atomically. tilec's compiled kernels do not go
here (they go to tilec's disk cache, TILEC_CACHE_DIR); this serves host code that uses
Triton's cache API for its own files (torch's inductor reads triton_key() from here).
"""

import base64
import functools
import hashlib
import json
import os
import uuid
from abc import ABC, abstractmethod

from .. import __version__, knobs
from .. import _refused


def _dir(kind):
    c = knobs.cache
    if kind == "dump":
        return c.dump_dir or os.path.join(c.home_dir, ".triton", "dump")
    if kind == "override":
        return c.override_dir or os.path.join(c.home_dir, ".triton", "override")
    return c.dir or os.path.join(c.home_dir, ".triton", "cache")


class CacheManager(ABC):
    """A store of named files per key."""

    def __init__(self, key, override=False, dump=False):
        pass

    @abstractmethod
    def get_file(self, filename):
        ...

    @abstractmethod
    def put(self, data, filename, binary=True):
        ...

    @abstractmethod
    def get_group(self, filename):
        ...

    @abstractmethod
    def put_group(self, filename, group):
        ...


class FileCacheManager(CacheManager):
    """Files in <cache dir>/<key>/ (the dump or override directory with dump=/override=)."""

    def __init__(self, key, override=False, dump=False):
        self.key = key
        self.cache_dir = os.path.join(_dir("dump" if dump else "override" if override else "cache"), key)
        self.lock_path = None if override else os.path.join(self.cache_dir, "lock")
        if not override:
            os.makedirs(self.cache_dir, exist_ok=True)

    def _make_path(self, filename):
        return os.path.join(self.cache_dir, filename)

    def has_file(self, filename):
        return os.path.exists(self._make_path(filename))

    def get_file(self, filename):
        return self._make_path(filename) if self.has_file(filename) else None

    def get_group(self, filename):
        """{child: path} of a group stored with put_group, or None (missing, corrupt, or a
        child file gone)."""
        name = f"__grp__{filename}"
        if not self.has_file(name):
            return None
        try:
            with open(self._make_path(name)) as f:
                children = json.load(f).get("child_paths")
        except (OSError, ValueError, AttributeError):
            return None
        if not isinstance(children, dict) or not all(os.path.exists(p) for p in children.values()):
            return None
        return dict(children)

    def put_group(self, filename, group):
        return self.put(json.dumps({"child_paths": group}), f"__grp__{filename}", binary=False)

    def put(self, data, filename, binary=True):
        """Writes `data` (bytes, else its str) as `filename`, atomically; returns the path."""
        binary = isinstance(data, bytes)
        if not binary:
            data = str(data)
        os.makedirs(self.cache_dir, exist_ok=True)
        path = self._make_path(filename)
        tmp_dir = os.path.join(self.cache_dir, f"tmp.pid_{os.getpid()}_{uuid.uuid4()}")
        os.makedirs(tmp_dir)
        tmp = os.path.join(tmp_dir, filename)
        with open(tmp, "wb" if binary else "w") as f:
            f.write(data)
        os.replace(tmp, path)
        os.removedirs(tmp_dir)
        return path


class RemoteCacheBackend:
    """Interface of a remote store for Triton's cache (`knobs.cache.remote_manager_class`
    builds one); subclasses implement get/put."""

    def __init__(self, key):
        pass

    @abstractmethod
    def get(self, filenames):
        ...

    @abstractmethod
    def put(self, filename, data):
        ...


RedisRemoteCacheBackend = _refused.refused_class("triton.runtime.cache.RedisRemoteCacheBackend")


def _base32(key):
    """A hex digest as unpadded base32 (Triton's directory names)."""
    return base64.b32encode(bytes.fromhex(key)).decode("utf-8").rstrip("=")


def _base64(key):
    return base64.urlsafe_b64encode(bytes.fromhex(key)).decode("utf-8").rstrip("=")


def get_cache_manager(key):
    return (knobs.cache.manager_class or FileCacheManager)(_base32(key))


def get_override_manager(key):
    return (knobs.cache.manager_class or FileCacheManager)(_base32(key), override=True)


def get_dump_manager(key):
    return (knobs.cache.manager_class or FileCacheManager)(_base32(key), dump=True)


def make_so_cache_key(version_hash, signature, constants, ids, **kwargs):
    signature = {k: "ptr" if v[0] == "*" else v for k, v in signature.items()}
    key = f"{version_hash}-{''.join(signature.values())}-{constants}-{ids}"
    for kw in kwargs:
        key = f"{key}-{kwargs.get(kw)}"
    return _base32(hashlib.sha256(key.encode("utf-8")).hexdigest())


@functools.lru_cache()
def triton_key():
    """The key of the compiler behind this `triton`: Triton's version this API follows,
    tilec's version, and the hashes of tilec's libraries, extension and Python sources (a
    different tilec build gives a different key)."""
    import tilec
    from tilec import _C
    package = os.path.dirname(os.path.abspath(tilec.__file__))
    files = [_C.__file__]
    for name in sorted(os.listdir(package)):
        if name.startswith(("libtilec", "_C.")) and os.path.realpath(os.path.join(package, name)) not in files:
            files.append(os.path.realpath(os.path.join(package, name)))
    for root, dirs, names in os.walk(package, followlinks=True):
        dirs.sort()
        files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".py")]
    contents = []
    for path in dict.fromkeys(os.path.realpath(f) for f in files):
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        contents.append(h.hexdigest())
    return f"{__version__}-tilec-{tilec.__version__}-" + "-".join(contents)


get_cache_key = _refused.refused_function("triton.compiler.get_cache_key")

__all__ = ["CacheManager", "FileCacheManager", "RemoteCacheBackend", "RedisRemoteCacheBackend", "get_cache_manager",
           "get_override_manager", "get_dump_manager", "make_so_cache_key", "triton_key", "knobs"]
