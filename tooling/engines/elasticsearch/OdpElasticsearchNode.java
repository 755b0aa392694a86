import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.node.Node;
import org.elasticsearch.plugins.PluginsLoader;

/**
 * Runs one Elasticsearch 8 node for the scale-out test suites, from the server jars Maven Central
 * publishes (the distribution archive is not reachable here).
 *
 * Usage: {@code java -cp HOME/lib/* OdpElasticsearchNode HOME RUN_DIR HTTP_PORT}. HOME holds the
 * server jars in {@code lib/} and the module bundles in {@code modules/} (only transport-netty4,
 * which provides HTTP; analysis-common, reindex and rest-root are not published). Data and logs go
 * under RUN_DIR; the process id is written to RUN_DIR/node.pid (the process may be started through
 * runuser, whose own pid is not the node's). The node is a single-node cluster bound to 127.0.0.1
 * with no security module at all, so it must never listen on another address. It stops on SIGTERM.
 */
public final class OdpElasticsearchNode {
  private OdpElasticsearchNode() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: OdpElasticsearchNode HOME RUN_DIR HTTP_PORT");
      System.exit(2);
    }
    Path home = Path.of(args[0]).toAbsolutePath();
    Path run = Path.of(args[1]).toAbsolutePath();
    Files.createDirectories(run.resolve("data"));
    Files.createDirectories(run.resolve("logs"));
    Files.createDirectories(run.resolve("config"));
    Files.writeString(run.resolve("node.pid"), Long.toString(ProcessHandle.current().pid()));
    Settings settings = Settings.builder()
        .put("path.home", home.toString())
        .put("path.data", run.resolve("data").toString())
        .put("path.logs", run.resolve("logs").toString())
        .put("cluster.name", "odp-engines")
        .put("node.name", "odp-engines-0")
        .put("discovery.type", "single-node")
        .put("network.host", "127.0.0.1")
        .put("http.port", args[2])
        .put("transport.port", "0")
        // A test node: a full disk must not turn the indexes read-only under the suites.
        .put("cluster.routing.allocation.disk.threshold_enabled", false)
        .build();
    LogConfigurator.configureWithoutConfig(settings);
    Environment environment = new Environment(settings, run.resolve("config"));
    PluginsLoader plugins = PluginsLoader.createPluginsLoader(
        PluginsLoader.loadModulesBundles(environment.modulesDir()), Set.of(), Map.of());
    Node node = new Node(environment, plugins);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        node.close();
      } catch (Exception e) {
        e.printStackTrace();
      } finally {
        stopped.countDown();
      }
    }));
    node.start();
    System.err.println("odp-engines: elasticsearch node started on 127.0.0.1:" + args[2]);
    stopped.await();
  }
}
