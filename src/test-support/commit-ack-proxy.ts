/**
 * A TCP proxy in front of PostgreSQL that, once armed, loses the acknowledgement of the next COMMIT:
 * the server commits, and the proxy closes the client's connection instead of passing on the
 * `CommandComplete "COMMIT"` message. The client sees its connection drop during COMMIT — the case
 * where it cannot know whether its transaction landed (here: it did).
 */
import { connect, createServer, type Server, type Socket } from "node:net";

// CommandComplete: 'C', int32 length (4 + "COMMIT\0" = 11), "COMMIT\0".
const COMMIT_COMPLETE = Buffer.from("C\u0000\u0000\u0000\u000bCOMMIT\u0000", "latin1");

export interface CommitAckProxy {
  /** `connectionString` with host and port replaced by the proxy's. */
  readonly url: string;
  /** Loses the acknowledgement of the next COMMIT that passes through. */
  arm(): void;
  /** How many acknowledgements were lost so far. */
  readonly lost: number;
  close(): Promise<void>;
}

export async function commitAckProxy(connectionString: string): Promise<CommitAckProxy> {
  const target = new URL(connectionString);
  let armed = false;
  let lost = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on("data", (chunk: Buffer) => {
      if (armed && chunk.includes(COMMIT_COMPLETE)) {
        armed = false;
        lost += 1;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on("error", closeBoth);
      socket.on("close", closeBoth);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no TCP address");
  const url = new URL(connectionString);
  url.hostname = "127.0.0.1";
  url.port = String(address.port);
  return {
    url: url.toString(),
    arm: () => {
      armed = true;
    },
    get lost() {
      return lost;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
