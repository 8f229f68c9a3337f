"""A small web UI that needs model weights before it can serve.

On first start the weights are not in cache_hub/, so it downloads them from
the CDN and saves them there.  Every failure on the way is swallowed and the
user only sees "model load failed": the shape of many real startup bugs.
"""
import os
import socket
import sys

CACHE_DIR = "cache_hub"
WEIGHTS = os.path.join(CACHE_DIR, "model.pth")
# TEST-NET-2: documentation only, never routed; WEBUI_CDN=HOST:PORT points elsewhere
_CDN = os.environ.get("WEBUI_CDN", "198.51.100.7:443").rpartition(":")
CDN = (_CDN[0], int(_CDN[2]))
MIN_WEIGHTS_SIZE = 16


def log(message):
    print(f"webui: {message}", flush=True)


def read_weights():
    with open(WEIGHTS, "rb") as f:
        return f.read()


def download_weights():
    """Fetch the weights; an unreachable CDN gives an empty result."""
    try:
        with socket.create_connection(CDN, timeout=3) as conn:
            conn.sendall(b"GET /models/model.pth HTTP/1.0\r\n\r\n")
            return conn.recv(1 << 20)
    except OSError:
        return b""


def save_weights(data):
    with open(WEIGHTS, "wb") as f:
        f.write(data)


def load_model():
    try:
        return read_weights()
    except FileNotFoundError:
        log("weights not in cache, downloading")
    data = download_weights()
    save_weights(data)  # bug: saves even a failed download
    return read_weights()


def main():
    log("starting web UI")
    try:
        weights = load_model()
        if len(weights) < MIN_WEIGHTS_SIZE:
            raise ValueError("weights file too small")
    except (OSError, ValueError):
        print("model load failed", file=sys.stderr)
        return 1
    log("serving on http://127.0.0.1:7860")
    return 0


if __name__ == "__main__":
    sys.exit(main())
