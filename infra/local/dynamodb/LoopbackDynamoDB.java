// LoopbackDynamoDB starts the official DynamoDB Local bound to 127.0.0.1 only.
// DynamoDBLocal.jar has no bind-address flag (its Jetty server listens on every
// interface), so this launcher builds the server the way the jar's own main does
// and sets the Jetty connector's host before starting it. Run with Java's
// single-file source launcher:
//   java -cp 'DynamoDBLocal.jar:DynamoDBLocal_lib/*' LoopbackDynamoDB.java -inMemory -port N -disableTelemetry
//
// With the environment variable SECSCAN_DYNAMODB_SECRET set, it answers only
// requests whose X-Secscan-Dynamodb-Secret header carries that value (403
// otherwise): dynamolocal's proxy, which checks the Host of every request
// (DNS rebinding), adds it, so a web page that finds this private port gets
// nothing either.
import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
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
        String secret = System.getenv("SECSCAN_DYNAMODB_SECRET");
        if (secret != null && !secret.isEmpty()) {
            SecretRequired guard = new SecretRequired(secret.getBytes(StandardCharsets.UTF_8));
            guard.setHandler(server.getHandler());
            server.setHandler(guard);
        }
        proxy.start();
        System.out.println("DynamoDB Local listening on 127.0.0.1" + (secret == null || secret.isEmpty() ? "" : ", for its proxy only"));
        proxy.join();
    }

    /** Refuses (403) a request without the per-start secret header. */
    static final class SecretRequired extends HandlerWrapper {
        private final byte[] secret;

        SecretRequired(byte[] secret) {
            this.secret = secret;
        }

        @Override
        public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse res)
                throws IOException, javax.servlet.ServletException {
            String got = req.getHeader("X-Secscan-Dynamodb-Secret");
            if (got == null || !MessageDigest.isEqual(got.getBytes(StandardCharsets.UTF_8), secret)) {
                base.setHandled(true);
                res.setStatus(HttpServletResponse.SC_FORBIDDEN);
                res.setContentType("application/x-amz-json-1.0");
                res.getWriter().write("{\"__type\":\"com.amazonaws.dynamodb.v20120810#AccessDeniedException\",\"message\":\"DynamoDB Local answers only its proxy\"}");
                return;
            }
            super.handle(target, base, req, res);
        }
    }
}
