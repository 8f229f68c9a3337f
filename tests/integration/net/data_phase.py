"""Three connections to servers of this process on 127.0.0.1, each ending
its own way, then curl downloading from one of them:

- "silent": the server accepts, reads the request, waits 0.3 s and closes
  without a word: the client's receive returns 0 (peer closed, 0 bytes);
- "reset": the server accepts and closes with SO_LINGER 0, a TCP reset:
  the client's receive fails with ECONNRESET;
- "http": an HTTP server answers curl with 2000 bytes of body.
"""
import http.server
import socket
import struct
import subprocess
import threading
import time

BODY = b"x" * 2000


def listener():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s, s.getsockname()[1]


def silent_server(s):
    c, _ = s.accept()
    c.recv(4096)
    time.sleep(0.3)
    c.close()


def reset_server(s):
    c, _ = s.accept()
    c.recv(4096)
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


def client(port, request):
    c = socket.create_connection(("127.0.0.1", port))
    c.sendall(request)
    try:
        got = c.recv(4096)
        print("received %d bytes" % len(got))
    except ConnectionResetError:
        print("reset")
    c.close()


def main():
    s1, p1 = listener()
    s2, p2 = listener()
    threading.Thread(target=silent_server, args=(s1,), daemon=True).start()
    threading.Thread(target=reset_server, args=(s2,), daemon=True).start()
    client(p1, b"GET /model.bin HTTP/1.1\r\nHost: x\r\n\r\n")
    client(p2, b"PING\r\n")
    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/model.bin" % httpd.server_address[1]
    out = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{size_download}", url],
                         capture_output=True, text=True)
    print("curl: status %d, %s bytes" % (out.returncode, out.stdout))
    httpd.shutdown()


main()
