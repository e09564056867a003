// LoopbackDynamoDB starts the official DynamoDB Local bound to 127.0.0.1 only.
// DynamoDBLocal.jar has no bind-address flag (its Jetty server listens on every
// interface), so this launcher builds the server the way the jar's own main does
// and sets the Jetty connector's host before starting it. Run with Java's
// single-file source launcher:
//   java -cp 'DynamoDBLocal.jar:DynamoDBLocal_lib/*' LoopbackDynamoDB.java -inMemory -port N -disableTelemetry
import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public class LoopbackDynamoDB {
    public static void main(String[] args) throws Exception {
        DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
        java.lang.reflect.Field field = DynamoDBProxyServer.class.getDeclaredField("server");
        field.setAccessible(true);
        Server server = (Server) field.get(proxy);
        for (Connector connector : server.getConnectors()) {
            ((ServerConnector) connector).setHost("127.0.0.1");
        }
        proxy.start();
        System.out.println("DynamoDB Local listening on 127.0.0.1");
        proxy.join();
    }
}
