import os from "node:os";

/**
 * An IPv4 address of this machine's that is not loopback: the site takes a
 * connection to it for one to another host, which a stand-in server there
 * answers as a network attacker on the way would.
 */
export function offLoopbackAddress(): string {
  const address = Object.values(os.networkInterfaces())
    .flat()
    .find((one) => one?.family === "IPv4" && !one.internal)?.address;
  if (!address) throw new Error("this test needs an IPv4 address besides loopback");
  return address;
}
