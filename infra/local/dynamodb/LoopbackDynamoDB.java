// LoopbackDynamoDB starts the official DynamoDB Local bound to 127.0.0.1 only.
// DynamoDBLocal.jar has no bind-address flag (its Jetty server listens on every
// interface), so this launcher builds the server the way the jar's own main does
// and sets the Jetty connector's host before starting it. Run with Java's
// single-file source launcher:
//   java -cp 'DynamoDBLocal.jar:DynamoDBLocal_lib/*' LoopbackDynamoDB.java -inMemory -port N -disableTelemetry
//
// DynamoDB Local has no authentication (a junk signature is accepted), so a
// web page rebound to 127.0.0.1 (DNS rebinding) could read and write the whole
// table from a developer's browser. MachineOnly refuses what such a page sends,
// as the Go listeners' loopback.Refusal does (infra/local/loopback; the two
// are tested against the same table of Hosts): 421 for a Host that is not
// localhost or a loopback address on this listener's port, 403 for a request
// carrying an Origin header (browsers send one with every cross-origin
// request; the SDKs never do). SECSCAN_DYNAMODB_HOSTS (comma-separated) names
// further hosts accepted on the port (host.docker.internal for sam local).
import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.HandlerWrapper;

public class LoopbackDynamoDB {
    public static void main(String[] args) throws Exception {
        DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
        java.lang.reflect.Field field = DynamoDBProxyServer.class.getDeclaredField("server");
        field.setAccessible(true);
        Server server = (Server) field.get(proxy);
        for (Connector connector : server.getConnectors()) {
            ((ServerConnector) connector).setHost("127.0.0.1");
        }
        String extra = System.getenv("SECSCAN_DYNAMODB_HOSTS");
        MachineOnly guard = new MachineOnly(extra == null || extra.isEmpty() ? List.of() : Arrays.asList(extra.split(",")));
        guard.setHandler(server.getHandler());
        server.setHandler(guard);
        proxy.start();
        System.out.println("DynamoDB Local listening on 127.0.0.1, for loopback Hosts only");
        proxy.join();
    }

    /** Answers only requests a program on this machine sends (see the top of the file). */
    static final class MachineOnly extends HandlerWrapper {
        // Only literals are parsed (InetAddress.getByName of a name would look it up).
        private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
        private final List<String> names;

        MachineOnly(List<String> names) {
            this.names = names;
        }

        @Override
        public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse res)
                throws IOException, javax.servlet.ServletException {
            String host = req.getHeader("Host");
            if (host == null || !hostOK(host, String.valueOf(req.getLocalPort()))) {
                refuse(base, res, 421, "Misdirected request: this local stack listener answers only loopback hosts (127.0.0.1, localhost, [::1]) on its own port");
                return;
            }
            if (req.getHeader("Origin") != null) {
                refuse(base, res, HttpServletResponse.SC_FORBIDDEN, "Cross-origin request refused: this local stack listener answers programs, not web pages");
                return;
            }
            super.handle(target, base, req, res);
        }

        /** loopback.Host of the Go listeners, plus the extra names with the port. */
        boolean hostOK(String hostport, String port) {
            String host = hostport, hostPort = "";
            int colon = hostport.lastIndexOf(':');
            if (hostport.startsWith("[")) {
                int end = hostport.indexOf(']');
                if (end < 0) {
                    return false;
                }
                host = hostport.substring(1, end);
                String rest = hostport.substring(end + 1);
                if (!rest.isEmpty()) {
                    if (!rest.startsWith(":")) {
                        return false;
                    }
                    hostPort = rest.substring(1);
                }
            } else if (colon >= 0) {
                if (hostport.indexOf(':') != colon) {
                    return false; // an IPv6 literal needs brackets
                }
                host = hostport.substring(0, colon);
                hostPort = hostport.substring(colon + 1);
            }
            if (!hostPort.isEmpty() && !hostPort.equals(port)) {
                return false;
            }
            String lower = host.toLowerCase(Locale.ROOT);
            if (lower.equals("localhost")) {
                return true;
            }
            if (!hostPort.isEmpty() && names.contains(lower)) {
                return true;
            }
            boolean literal = hostport.startsWith("[") ? host.indexOf('%') < 0 && host.indexOf(':') >= 0 : IPV4.matcher(host).matches();
            if (!literal) {
                return false;
            }
            try {
                return InetAddress.getByName(host).isLoopbackAddress();
            } catch (Exception e) {
                return false;
            }
        }

        private static void refuse(Request base, HttpServletResponse res, int status, String message) throws IOException {
            base.setHandled(true);
            res.setStatus(status);
            res.setContentType("application/x-amz-json-1.0");
            res.getWriter().write("{\"__type\":\"com.amazonaws.dynamodb.v20120810#AccessDeniedException\",\"message\":\"" + message + "\"}");
        }
    }
}
