"""
salt.utils.hashutils for brine: hashing and base64 helpers as Salt 3006's.
Text results are str; base64 decoders return bytes when the decoded data
is not valid text.
"""

import base64
import hashlib
import hmac
import random

import salt.utils.files
from salt.utils.stringutils import to_bytes, to_unicode


def base64_b64encode(instr):
    """base64 of a str/bytes, as str, without newlines."""
    return to_unicode(base64.b64encode(to_bytes(instr)))


def base64_b64decode(instr):
    """The decoded str (bytes if not text)."""
    decoded = base64.b64decode(to_bytes(instr))
    try:
        return to_unicode(decoded)
    except UnicodeDecodeError:
        return decoded


def base64_encodestring(instr):
    """base64 with a newline every 76 characters and at the end."""
    return to_unicode(base64.encodebytes(to_bytes(instr)))


def base64_decodestring(instr):
    """The decoded str (bytes if not text) of base64_encodestring output."""
    decoded = base64.decodebytes(to_bytes(instr))
    try:
        return to_unicode(decoded)
    except UnicodeDecodeError:
        return decoded


def md5_digest(instr):
    """Hex md5 of a str/bytes."""
    return hashlib.md5(to_bytes(instr)).hexdigest()


def sha1_digest(instr):
    """Hex sha1 of a str/bytes."""
    return hashlib.sha1(to_bytes(instr)).hexdigest()


def sha256_digest(instr):
    """Hex sha256 of a str/bytes."""
    return hashlib.sha256(to_bytes(instr)).hexdigest()


def sha512_digest(instr):
    """Hex sha512 of a str/bytes."""
    return hashlib.sha512(to_bytes(instr)).hexdigest()


def hmac_signature(string, shared_secret, challenge_hmac):
    """True if challenge_hmac is the base64 HMAC-SHA256 of string."""
    digest = hmac.new(to_bytes(shared_secret), to_bytes(string), hashlib.sha256).digest()
    return base64.b64encode(digest) == to_bytes(challenge_hmac)


def hmac_compute(string, shared_secret):
    """Hex HMAC-SHA256 of string."""
    return hmac.new(to_bytes(shared_secret), to_bytes(string), hashlib.sha256).hexdigest()


def random_hash(size=9999999999, hash_type=None):
    """The hex hash (md5 by default) of a random number up to size."""
    hasher = getattr(hashlib, hash_type or "md5")
    return hasher(to_bytes(str(random.SystemRandom().randint(0, size)))).hexdigest()


def get_hash(path, form="sha256", chunk_size=65536):
    """Hex hash of the file at path; ValueError for an unknown form."""
    hash_type = getattr(hashlib, form, None) if hasattr(hashlib, form) else None
    if hash_type is None:
        raise ValueError("Invalid hash type: {}".format(form))
    with salt.utils.files.fopen(path, "rb") as ifile:
        obj = hash_type()
        for chunk in iter(lambda: ifile.read(chunk_size), b""):
            obj.update(chunk)
        return obj.hexdigest()


class DigestCollector:
    """Collects one digest over several files."""

    def __init__(self, form="sha256", buff=0x10000):
        self._digest = getattr(hashlib, form)() if hasattr(hashlib, form) else None
        if self._digest is None:
            raise ValueError("Invalid hash type: {}".format(form))
        self._buff = buff

    def add(self, path):
        with salt.utils.files.fopen(path, "rb") as ifile:
            for chunk in iter(lambda: ifile.read(self._buff), b""):
                self._digest.update(chunk)

    def digest(self):
        return self._digest.hexdigest()
