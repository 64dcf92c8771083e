// Which member of a real cluster leads right now, for fault steps that name the scenario's
// preferredLeader (the simulator makes that server win elections; real servers elect whom
// they elect). Asked of every live member, each bounded; undefined if none says.
//   etcd:      POST /v3/maintenance/status → { header: { member_id }, leader }: the member
//              whose own id is the leader id it reports
//   ZooKeeper: `srvr` → "Mode: leader"
import { httpRequest, zkSrvr } from "./servers/index.js";
import type { StartedServer } from "./started-server.js";

const ASK_TIMEOUT_MS = 500;

async function etcdLeads(port: number): Promise<boolean> {
  try {
    const r = await httpRequest(port, "POST", "/v3/maintenance/status", "{}", ASK_TIMEOUT_MS);
    const j = JSON.parse(r.body) as { header?: { member_id?: string }; leader?: string };
    return r.status === 200 && j.leader !== undefined && j.header?.member_id === j.leader;
  } catch {
    return false;
  }
}

/** The first member to say it leads, without waiting for slower ones (a fault step waits on this). */
export function currentLeader(servers: readonly StartedServer[]): Promise<string | undefined> {
  const live = servers.filter((s) => s.process.isLive());
  return new Promise((resolve) => {
    let left = live.length;
    if (left === 0) resolve(undefined);
    for (const s of live) {
      const asked =
        s.kind === "etcd"
          ? etcdLeads(s.endpoint.port)
          : s.kind === "zookeeper"
            ? zkSrvr(s.endpoint.port, ASK_TIMEOUT_MS).then((t) => /^Mode: leader$/m.test(t))
            : Promise.resolve(false);
      void asked
        .catch(() => false)
        .then((leads) => {
          if (leads) resolve(s.id);
          if (--left === 0) resolve(undefined);
        });
    }
  });
}
