// Type declarations for the MockCDN test helper (index.js). Hand-written; kept in step with index.js by
// test/exports.test.js.

/** GET /_mockcdn/health. */
export interface Health {
  status: 'ok' | 'degraded';
  /** This process, 12 hex digits. */
  instance: string;
  store: 'memory' | 'disk' | 's3';
  /** Why the store is degraded. */
  reason?: string;
}

export type TokenKind = 'fat' | 'user' | 'server';

export interface TokenOptions {
  /** Default `fat` (a CometChat File Access Token); `user` and `server` are Stream JWTs. */
  kind?: TokenKind;
  /** Required for `fat` and `user`. */
  userId?: string;
  /** Default `demo`. */
  appId?: string;
  /** Seconds, 1-2,592,000. A FAT's default is 3600; a JWT without it has no `exp`. */
  ttl?: number;
}

/** What a request must look like for a fault rule to match; a member left out matches anything. */
export interface FaultMatch {
  /** HTTP method, compared case-insensitively. */
  method?: string;
  /** A path prefix, or a glob over the whole path when it holds `*` (`*` matches `/` too). */
  path?: string;
  /** The name of a query parameter the request must carry. */
  query?: string;
}

/** What happens to a request a rule hits; at least one member. */
export interface FaultAction {
  /** Answer this status (200-599) without running the route. */
  status?: number;
  /** The body of the `status` answer (text/plain). */
  body?: string;
  /** Wait first, 0-60,000 ms. */
  delay_ms?: number;
  /** Pace request and response bodies; 0 is no throttle. */
  throttle_bytes_per_sec?: number;
  /** Drop Content-Length and close the connection after this many response body bytes. */
  reset_after_bytes?: number;
  /** Keep Content-Length and close the connection after this many response body bytes. */
  truncate_after_bytes?: number;
}

/** A new fault rule (POST /_mockcdn/faults). */
export interface FaultRule {
  match?: FaultMatch;
  /** Hits before the rule runs out; left out, never. */
  times?: number;
  /** 0-1, default 1. */
  probability?: number;
  action: FaultAction;
}

/** A rule as GET /_mockcdn/faults lists it. */
export interface InstalledFault {
  /** `f1`, `f2`, ... */
  id: string;
  match: FaultMatch;
  /** Hits left; null for no limit. */
  remaining: number | null;
  probability: number;
  action: FaultAction;
  hits: number;
}

export type CredentialSource =
  | 'fat-header'
  | 'fat-query'
  | 'presigned'
  | 'presigned-v2'
  | 'cloudfront'
  | 'cloudfront-cookie'
  | 's3-header-sigv4'
  | 's3-header-sigv2'
  | 's3-post-policy'
  | 'jwt'
  | 'none';

/** One request of the journal (GET /_mockcdn/requests). */
export interface JournalEntry {
  /** `r1`, `r2`, ... */
  id: string;
  /** Real time of arrival, Unix seconds with milliseconds. */
  received_at: number;
  /** The MockCDN clock at arrival, Unix seconds. */
  clock: number;
  method: string;
  /** As sent, without the query. */
  path: string;
  /** As sent, without `?`, credentials redacted. */
  query: string;
  /** The route it was matched to (`/{app}/**` for a media read); null when none was. */
  route: string | null;
  credential: CredentialSource | string;
  /** 0 while the request is still running. */
  status: number;
  bytes_in: number;
  bytes_out: number;
  duration_ms: number;
  /** The id of the fault rule that hit the request. */
  fault: string | null;
  /** An error answer's code and message. */
  reason?: string | null;
  /** For a credential refused only because its time had passed: its expiry, Unix seconds by the MockCDN clock. */
  expired_at?: number | null;
}

export interface RequestFilter {
  method?: string;
  /** A path prefix. */
  path?: string;
  /** 100-599. */
  status?: number;
}

/** Every failure: an HTTP answer that is not 2xx, or `status` 0 when there was no answer at all. */
export class MockCDNError extends Error {
  constructor(
    message: string,
    options?: { status?: number; body?: unknown; method?: string; url?: string; cause?: unknown },
  );
  name: 'MockCDNError';
  /** The HTTP status; 0 when the server could not be started, reached or stopped. */
  status: number;
  /** The answer's body (parsed JSON, or text), or the server's stderr when it did not start. */
  body: unknown;
  method?: string;
  url?: string;
}

/** An expectation for verify(): every member left out matches anything. */
export interface Expectation {
  /** HTTP method, compared case-insensitively. */
  method?: string;
  /** A glob over the path as sent: `*` within a segment, a `**` segment across any number of segments. */
  path?: string;
  /** Text the (redacted) query must contain. */
  query?: string;
  credential?: CredentialSource;
  /** A status, or a class such as `4xx`. */
  status?: number | `${1 | 2 | 3 | 4 | 5}xx`;
  /** How many entries must match: a number (exactly), or bounds (a missing `min` is 0, a missing `max` none).
   * Left out: at least once. */
  count?: number | { min?: number; max?: number };
}

export interface VerifyOptions {
  /** Each expectation must be met after the previous one's last match. */
  ordered?: boolean;
  /** Only journal entries after this id (`r12`) are judged. */
  since?: string;
}

/** A journal entry that came close to an unmet expectation. */
export interface NearMiss {
  id: string;
  clock: number;
  method: string;
  path: string;
  query: string;
  credential: CredentialSource | string;
  status: number;
  reason: string | null;
  /** When a credential refused for its time expired, by the MockCDN clock. */
  expired_at: number | null;
  /** The fields of the expectation this entry matched. */
  matched: string[];
  /** What differed, one phrase each. */
  differences: string[];
  /** The differences after the fields that matched, e.g. `method and path matched, but status 403 where 200 was expected`. */
  explanation: string;
}

/** POST /_mockcdn/verify's answer (200 or 409). */
export interface VerificationResult {
  met: boolean;
  expectations: {
    index: number;
    met: boolean;
    /** The expectation in words. */
    expected: string;
    /** Ids of the entries it matched, oldest first. */
    matched: string[];
    /** What fell short; null when met. */
    problem: string | null;
    /** At most three, closest first. */
    near_misses: NearMiss[];
  }[];
  /** The whole in plain text. */
  report: string;
}

/** verify() found an expectation unmet: the message is the server's near-miss report. */
export class VerificationError extends MockCDNError {
  constructor(report: string, options?: { result?: VerificationResult; method?: string; url?: string });
  name: 'VerificationError';
  status: 409;
  report: string;
  result: VerificationResult;
}

/** Options of events(): each one left out is not sent. */
export interface EventsOptions {
  /** Only events with a greater id (default 0): the previous answer's `last_id`. */
  after?: number;
  /** Long poll: seconds (0-60, fractions allowed) to wait for a first matching event; default 0, answer at once. */
  wait?: number;
  /** Only this app's events (an unknown app is 404). */
  app?: string;
  /** Only the events a notification target (its id or ARN) passed; each record's `configurationId` is then its id. */
  target?: string;
}

/** One S3 event notification record, as AWS writes it (`eventVersion` 2.1). */
export interface S3EventRecord {
  eventVersion: '2.1';
  eventSource: 'aws:s3';
  awsRegion: string;
  /** The MockCDN clock, ISO 8601 with milliseconds. */
  eventTime: string;
  /** Without the `s3:` prefix: `ObjectCreated:Put`, `ObjectCreated:Post`, `ObjectCreated:Copy`,
   * `ObjectCreated:CompleteMultipartUpload`, `ObjectRemoved:Delete`, `ObjectTagging:Put`, ... */
  eventName: string;
  userIdentity: { principalId: string };
  requestParameters: { sourceIPAddress: string };
  responseElements: { 'x-amz-request-id': string; 'x-amz-id-2': string };
  s3: {
    s3SchemaVersion: '1.0';
    /** The target's id (empty in the queue read without `target`). */
    configurationId: string;
    bucket: { name: string; arn: string; ownerIdentity: { principalId: string } };
    /** `key` is form-encoded as AWS does it (a space is `+`, `/` kept); `size` and `eTag` on `ObjectCreated:*` only. */
    object: { key: string; size?: number; eTag?: string; sequencer: string };
  };
}

/** One event of the queue. */
export interface QueuedEvent {
  /** From 1, increasing for the server's life (a reset does not restart them). */
  id: number;
  app: string;
  /** The ids of the app's targets whose filter the event passed. */
  targets: string[];
  /** The ARNs among them. */
  arns: string[];
  record: S3EventRecord;
}

/** GET /_mockcdn/events. */
export interface EventList {
  events: QueuedEvent[];
  /** The newest event's id whatever the filters (0 before the first): the next poll's `after`. */
  last_id: number;
  /** Long polls waiting now, this one not counted. */
  waiting: number;
}

/** One notification target: a webhook (`url`) or a queue, topic or Lambda function (`arn`). */
export interface NotificationTarget {
  /** Given (`notification-N`) when left out. */
  id?: string;
  /** A webhook's `http://` or `https://` URL (not MockCDN's own control routes). */
  url?: string;
  /** A queue's, topic's or Lambda function's ARN. */
  arn?: string;
  /** S3 event names with their `s3:` prefix (`s3:ObjectCreated:*`); at least one. */
  events: string[];
  /** The key must start with it. */
  prefix?: string;
  /** The key must end with it. */
  suffix?: string;
}

/** An app's notification targets by kind (a kind left out is none); at most 100 targets. */
export interface NotificationConfiguration {
  webhooks?: NotificationTarget[];
  queues?: NotificationTarget[];
  topics?: NotificationTarget[];
  lambdas?: NotificationTarget[];
}

/** The targets as the server keeps them: every kind listed, every target with its id. */
export interface NotificationTargets {
  webhooks: (NotificationTarget & { id: string })[];
  queues: (NotificationTarget & { id: string })[];
  topics: (NotificationTarget & { id: string })[];
  lambdas: (NotificationTarget & { id: string })[];
}

export interface DeliveryFilter {
  app?: string;
  /** A target's id (`webhook_url`, an event hook's or a CometChat webhook's id for a vendor webhook). */
  target?: string;
}

export type DeliveryOutcome = 'delivered' | 'failed' | 'timeout' | 'unreachable' | 'dropped';

/** One webhook delivery attempt. */
export interface DeliveryAttempt {
  /** `d1`, ...: the same on each attempt (`X-MockCDN-Delivery`). */
  delivery: string;
  app: string;
  target: string;
  url: string;
  /** The queued event; null for a vendor webhook. */
  event_id: number | null;
  /** The S3 event name, or the vendor's event (`message.new`, `message_sent`). */
  event_name: string;
  /** The object key; a vendor webhook's first attached key. */
  key: string;
  /** From 1. */
  attempt: number;
  /** The MockCDN clock at the attempt, ISO 8601. */
  at: string;
  /** The target's status; null when there was none. */
  status: number | null;
  outcome: DeliveryOutcome;
  error: string | null;
  /** The fault rule that fired on it. */
  fault: string | null;
  duration_ms: number;
  /** The MockCDN clock's time of the next attempt; null when none follows. */
  next_attempt_at: string | null;
}

/** A delivery waiting for its next attempt. */
export interface PendingDelivery {
  delivery: string;
  app: string;
  target: string;
  url: string;
  event_id: number | null;
  attempt: number;
  due_at: string;
}

/** GET /_mockcdn/deliveries. */
export interface DeliveryList {
  /** Oldest first, the last 1,000. */
  attempts: DeliveryAttempt[];
  pending: PendingDelivery[];
}

/** A vendor-shaped webhook to send (POST /_mockcdn/webhooks, docs/webhooks.md). */
export interface VendorWebhookRequest {
  /** Default the first app. */
  app?: string;
  vendor: 'stream' | 'cometchat';
  /** `message.new` for stream, `message_sent` for cometchat. */
  event: 'message.new' | 'message_sent';
  message: {
    id?: string;
    text?: string;
    /** The sender's user id. */
    user: string;
    /** Stream: the channel's cid, `type:id` (required). */
    channel?: string;
    /** CometChat: the receiving uid or guid (required). */
    receiver?: string;
    receiver_type?: 'user' | 'group';
  };
  /** The app's object keys to attach, as stored within the app; at most 30. */
  keys?: string[];
}

/** POST /_mockcdn/webhooks's 202 answer. */
export interface VendorWebhookSent {
  deliveries: {
    /** The delivery's id in deliveries(). */
    delivery: string;
    /** `webhook_url`, an event hook's id, or the CometChat webhook's id. */
    target: string;
    url: string;
    /** Stream: the `X-Webhook-Id` of every attempt. */
    webhook_id?: string;
  }[];
  /** Each payload as signed (uncompressed), in the same order. */
  payloads: Record<string, unknown>[];
}

export type ReportFormat = 'json' | 'markdown' | 'junit';

/** One contract behaviour of the coverage report. */
export interface CoverageRow {
  /** A row id such as `stream.upload.file` (docs/report.md). */
  id: string;
  title: string;
  covered: boolean;
  /** Journal entries that exercised the row. */
  count: number;
  /** The first such entry's id, or null. */
  example: string | null;
}

/** GET /_mockcdn/report?format=json. */
export interface CoverageReport {
  /** The `since` asked for, or null. */
  since: string | null;
  /** Journal entries read. */
  entries: number;
  rows_total: number;
  rows_covered: number;
  /** Rows covered, percent, to one decimal. */
  percent: number;
  surfaces: {
    id: 'stream' | 'cometchat' | 'media' | 's3' | 'cloudfront' | 'control';
    title: string;
    rows_total: number;
    rows_covered: number;
    percent: number;
    rows: CoverageRow[];
  }[];
}

export interface ConnectOptions {
  /** Bearer token for /_mockcdn routes on a non-loopback server; default `MOCKCDN_ADMIN_TOKEN` (Node). */
  adminToken?: string;
  /** How long to wait for /_mockcdn/health to answer; default 10,000 ms. */
  timeoutMs?: number;
}

export interface StartOptions {
  /** The mockcdn binary; default `MOCKCDN_BINARY`, else `mockcdn` on PATH. */
  binary?: string;
  /** More `mockcdn serve` flags, after `serve --port 0` (e.g. `['--fixtures', 'none']`). */
  args?: string[];
  /** Added to the environment the server inherits. */
  env?: Record<string, string>;
  /** The admin token to send; default the one the server printed, `--admin-token` or `MOCKCDN_ADMIN_TOKEN`. */
  adminToken?: string;
  /** How long to wait for the ready line; default 30,000 ms. */
  timeoutMs?: number;
}

/** The part of Node's ChildProcess a test may want (the object is the real ChildProcess). */
export interface ServerProcess {
  readonly pid?: number;
  readonly exitCode: number | null;
  readonly signalCode: string | null;
  kill(signal?: string | number): boolean;
}

export class MockCDNClient {
  constructor(url: string | URL, options?: { adminToken?: string });
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41725`. */
  readonly url: string;
  readonly adminToken: string | undefined;
  /** The spawned process (startMockCDN in Node), else undefined. */
  readonly process: ServerProcess | undefined;
  /** A plain fetch of a path on the server (or an absolute URL); never rejects on an HTTP status. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  health(): Promise<Health>;
  /** A token minted at the server's clock (POST /_mockcdn/tokens). */
  token(options?: TokenOptions): Promise<string>;
  /** The server clock, Unix seconds. */
  now(): Promise<number>;
  /** Set the clock; resolves to the new now. */
  setClock(unix: number | Date | string): Promise<number>;
  /** Move the clock (negative: back); resolves to the new now. */
  advance(seconds: number): Promise<number>;
  /** Resolves to the rule's id (`f1`, ...). */
  addFault(rule: FaultRule): Promise<string>;
  faults(): Promise<InstalledFault[]>;
  removeFault(id: string): Promise<void>;
  clearFaults(): Promise<void>;
  /** The journal, oldest first. */
  requests(filter?: RequestFilter): Promise<JournalEntry[]>;
  /** Check the journal (POST /_mockcdn/verify); resolves to the ids each expectation matched, rejects with a
   * VerificationError (the near-miss report) when one is unmet. */
  verify(expectations: Expectation[], options?: VerifyOptions): Promise<string[][]>;
  clearRequests(): Promise<void>;
  /** Objects, journal, faults, clock, ... back to the startup state. */
  reset(): Promise<void>;
  /** The upload event queue (GET /_mockcdn/events); with `wait`, a long poll of that many seconds. */
  events(options?: EventsOptions): Promise<EventList>;
  /** The app's notification targets (GET /_mockcdn/apps/{app}/notifications). */
  notificationTargets(app: string): Promise<NotificationTargets>;
  /** Replace every notification target of the app; resolves to the targets as kept. */
  setNotificationTargets(app: string, targets: NotificationConfiguration): Promise<NotificationTargets>;
  /** The webhook delivery journal (GET /_mockcdn/deliveries). */
  deliveries(filter?: DeliveryFilter): Promise<DeliveryList>;
  /** Send a vendor-shaped webhook (POST /_mockcdn/webhooks); resolves to the 202 answer. */
  sendWebhook(body: VendorWebhookRequest): Promise<VendorWebhookSent>;
  /** The contract coverage report of the journal: parsed for `json` (default), the text for `markdown` and `junit`. */
  report(options?: { format?: 'json'; since?: string }): Promise<CoverageReport>;
  report(options: { format: 'markdown' | 'junit'; since?: string }): Promise<string>;
  report(options?: { format?: ReportFormat; since?: string }): Promise<CoverageReport | string>;
  /** JSON reports added up row by row by the server (POST /_mockcdn/report), rendered in `format`. */
  mergeReports(reports: CoverageReport[], options?: { format?: 'json' }): Promise<CoverageReport>;
  mergeReports(reports: CoverageReport[], options: { format: 'markdown' | 'junit' }): Promise<string>;
  mergeReports(reports: CoverageReport[], options?: { format?: ReportFormat }): Promise<CoverageReport | string>;
  /** SIGTERM the server startMockCDN spawned and wait for it; resolves to its exit code (0 when clean). */
  stop(options?: { timeoutMs?: number }): Promise<number | string | null>;
}

/** Spawn `mockcdn serve --port 0` (Node only); resolves once the ready line is read. */
export function startMockCDN(options?: StartOptions): Promise<MockCDNClient>;

/** Attach to a running server or container; resolves once /_mockcdn/health answers. */
export function connect(url: string | URL, options?: ConnectOptions): Promise<MockCDNClient>;
