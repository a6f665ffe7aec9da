import { REST_BASE } from '../kernel/paths.ts';

/** POST /v1/report (a module of its own so that access control can name it without loading the report code). */
export const REPORT_PATH = `${REST_BASE}/report`;
