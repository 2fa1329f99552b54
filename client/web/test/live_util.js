// What the tests against live servers (live.test.js, migrate.test.js) share: their
// arguments, a sleep, and the child processes they start, killed when the test exits.
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The programs named on the command line (the first `required` of them must be there).
export function programs(script, usage, required = 2) {
  const args = process.argv.slice(2);
  if (args.length < required || args.slice(0, required).some((a) => !a)) {
    console.error(`usage: node test/${script} ${usage}`);
    process.exit(2);
  }
  return args;
}

const children = [];
process.on("exit", () => children.forEach((c) => c.exitCode === null && c.kill("SIGKILL")));
// Remember a child process so that it never outlives the test.
export function track(child) {
  children.push(child);
  return child;
}

// pump(ms): runs the client for ms milliseconds, updating it every 4 ms, its events
// appended to `events`; `each()` is called after every update.
export function pumper(client, events, each = () => {}) {
  return (ms) => {
    const until = performance.now() + ms;
    return new Promise((resolve) => {
      const step = () => {
        client.update(performance.now());
        events.push(...client.events());
        each();
        if (performance.now() >= until) resolve();
        else setTimeout(step, 4);
      };
      step();
    });
  };
}
