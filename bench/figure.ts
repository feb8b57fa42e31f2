/** One figure of the bench: ours, Portkey's measured in the same run, and autotier / Portkey. */
export interface Figure {
  label: string;
  unit: string;
  autotier: number | null;
  portkey?: number | null;
  ratio?: number | null;
  /** The reference proxies' figure, same run, where measured: nginx (compiled) and the Node floor. */
  nginx?: number | null;
  nodeFloor?: number | null;
  note?: string;
}
