// Types of run-info.mjs, for the TypeScript that imports it (bench/src/run.ts, reliability's setup).

/** What a measuring run records about itself. */
export interface RunInfo {
  /** ISO time the run started. */
  readonly startedAt: string;
  /** ISO time it ended (absent while it runs). */
  readonly endedAt?: string;
  /** The checkout's commit, abbreviated. */
  readonly commit: string;
  /** Whether tracked files had uncommitted changes. */
  readonly dirty: boolean;
  /** The command, as typed. */
  readonly command: string;
  /** `quick` or `full` (bench), `ci` or `soak` (reliability). */
  readonly size: string;
  /** The machine. */
  readonly machine: {
    readonly node: string;
    readonly platform: string;
    readonly cpu: string;
    readonly cores: number;
    readonly ramGiB: number;
    readonly redis: string;
  };
  /** 1, 5 and 15-minute load averages at the start and the end. */
  readonly loadAverage: { readonly start: number[]; readonly end?: number[] };
}

/** The 1, 5 and 15-minute load averages now. */
export declare function loadNow(): number[];
/** The run's description at its start. */
export declare function startRun(options: { command: string; size: string; cwd?: string }): RunInfo;
/** The run's description at its end. */
export declare function endRun(run: RunInfo): RunInfo;
/** Whether two records name the same run. */
export declare function sameRun(
  a: Pick<RunInfo, 'startedAt' | 'commit' | 'command'>,
  b: Pick<RunInfo, 'startedAt' | 'commit' | 'command'>,
): boolean;
/** The distinct runs, oldest first, and the label a figure file gives each (R1, R2, …). */
export declare function labelRuns<Run extends Pick<RunInfo, 'startedAt' | 'commit' | 'command'>>(
  runs: Iterable<Run>,
): { runs: Run[]; label: (run: Run) => string };
/** A start and an end in UTC, the end's date left out when it is the start's. */
export declare function timeSpan(start: string, end: string | undefined): string;
/** Runs `main` with the command line's arguments when the module at `moduleUrl` is the program. */
export declare function runAsProgram(
  moduleUrl: string,
  fileName: string,
  main: (argv: string[]) => void,
): void;
