// The lockstep command from sources, as a child process (for tests that send it signals).
import { main } from "../../cli/main.js";

process.exitCode = await main(process.argv.slice(2));
