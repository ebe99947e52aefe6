package dev.lockstep.chaos.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP forwarder between the service and one database, so the test can break the network: {@link #cut()}
 * drops every open connection and refuses new ones until {@link #heal()}; {@link #blackholeWhenSent(String)}
 * silently stops forwarding from the moment the service sends a statement: sockets stay open, bytes are
 * read and withheld (and counted as the evidence), as a dead route or a lost host does, so that only the
 * service's own timeouts can end the wait.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile boolean cut;
    private volatile byte[] trigger;
    private volatile boolean blackhole;
    private final AtomicLong withheld = new AtomicLong();

    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket();
        listener.bind(new InetSocketAddress("127.0.0.1", 0));
        Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-" + targetPort);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return listener.getLocalPort();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                continue; // the listener was closed: the loop ends
            }
            if (cut) {
                closeQuietly(client); // the network is down: the connection dies at once
                continue;
            }
            if (blackhole) {
                open.add(client);
                swallow(client); // the route is dead: the connection hangs, nothing reaches the server
                continue;
            }
            Socket server;
            try {
                server = new Socket(targetHost, targetPort);
            } catch (IOException refused) {
                closeQuietly(client); // the server is down: the client's connection fails at once, as without a proxy
                continue;
            }
            open.add(client);
            open.add(server);
            try {
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
            } catch (IOException e) {
                // only latency: the pumps flush every chunk anyway
            }
            pump(client, server, true);
            pump(server, client, false);
        }
    }

    private void pump(Socket from, Socket to, boolean fromClient) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    byte[] armed = trigger;
                    if (fromClient && armed != null && contains(buffer, n, armed)) {
                        trigger = null;
                        blackhole = true;
                    }
                    if (blackhole) {
                        withheld.addAndGet(n);
                        continue;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed: close both below
            } finally {
                closeQuietly(from);
                open.remove(from);
                // across a dead route the other side hears nothing of this close: a blackhole keeps it open until heal()
                if (!blackhole) {
                    closeQuietly(to);
                    open.remove(to);
                }
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Reads and withholds everything a connection opened during a blackhole sends, keeping it open. */
    private void swallow(Socket client) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try (InputStream in = client.getInputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    withheld.addAndGet(n);
                }
            } catch (IOException e) {
                // closed by the service (its timeout) or by heal()
            } finally {
                closeQuietly(client);
                open.remove(client);
            }
        }, "tcp-proxy-blackhole");
        t.setDaemon(true);
        t.start();
    }

    private static boolean contains(byte[] buffer, int length, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (buffer[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * From the first chunk the service sends that contains {@code statement} (e.g. {@code PREPARE TRANSACTION}),
     * nothing more reaches either side, on any connection, until {@link #heal()}; that chunk itself is withheld too.
     */
    public void blackholeWhenSent(String statement) {
        withheld.set(0);
        trigger = statement.getBytes(StandardCharsets.US_ASCII);
    }

    public boolean blackholed() {
        return blackhole;
    }

    /** Bytes the blackhole read and did not forward since it was armed: the proof that it stalled real traffic. */
    public long withheldBytes() {
        return withheld.get();
    }

    /**
     * Drops every open connection and refuses new ones.
     *
     * @return how many of the service's connections it dropped (the evidence that the cut hit live traffic)
     */
    public int cut() {
        cut = true;
        int dropped = (int) open.stream().filter(socket -> socket.getLocalPort() == port()).count();
        open.forEach(TcpProxy::closeQuietly);
        open.clear();
        return dropped;
    }

    /** Ends a cut or a blackhole: the connections a blackhole held are closed (as the kernel would once the route is back). */
    public void heal() {
        trigger = null;
        if (blackhole) {
            blackhole = false;
            open.forEach(TcpProxy::closeQuietly);
            open.clear();
        }
        cut = false;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        cut();
        try {
            listener.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
