package dev.lockstep.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy in front of a database server that can turn into a blackhole: once armed, a connection whose client
 * sends a message containing the marker (a table name in the SQL text, say) goes silent both ways — that message and
 * everything after it is dropped and nothing is closed, as on a dead route or a frozen host. Only the driver's socket
 * timeout can end the wait. Arming by marker rather than by time makes the cut land exactly while that statement is
 * in flight. New connections forward normally again after {@link #restore()}; the silent ones stay silent.
 */
public final class BlackholeProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile String marker;

    public BlackholeProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon("blackhole-accept", this::accept);
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** From now on, a connection goes silent when its client sends {@code marker}. */
    public void blackholeWhenClientSends(String marker) {
        this.marker = marker;
    }

    /** The route is back for new connections. */
    public void restore() {
        this.marker = null;
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(server);
                AtomicBoolean silent = new AtomicBoolean();
                daemon("blackhole-up", () -> pump(client, server, silent, true));
                daemon("blackhole-down", () -> pump(server, client, silent, false));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, AtomicBoolean silent, boolean fromClient) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                String armed = marker;
                if (fromClient && armed != null && new String(buffer, 0, read, StandardCharsets.ISO_8859_1).contains(armed)) {
                    silent.set(true);
                }
                if (!silent.get()) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            }
        } catch (IOException closed) {
            // either side went away: the other pump ends on its own
        }
    }

    private static void daemon(String name, Runnable work) {
        Thread thread = new Thread(work, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
