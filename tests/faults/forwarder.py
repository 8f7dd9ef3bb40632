"""A TCP forwarder to PostgreSQL's Unix-domain socket: the PostgreSQL "host" of the
vanished-server test, run in a network namespace of its own (`ip netns exec`), so that the test
can cut its link and kill it without a word reaching the server's side.

    python tests/faults/forwarder.py <address> <port> <unix socket path>

Prints "listening" once it accepts connections. Killed, it resets its connections once and
keeps nothing of them: with the link down, no word of it reaches the other side. Standard
library only.
"""

from __future__ import annotations

import socket
import struct
import sys
import threading


def pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main() -> None:
    address, port, unix_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    listener = socket.create_server((address, port))
    print("listening", flush=True)
    while True:
        client, _ = listener.accept()
        # Closed (or killed) with linger 0, a connection is reset once and forgotten: nothing is
        # retransmitted after, so what is lost with a cut link stays lost.
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(unix_path)
        threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client), daemon=True).start()


if __name__ == "__main__":
    main()
