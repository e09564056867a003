// runner.mjs serves the AWS Step Functions JSON 1.0 API (StartExecution, DescribeExecution,
// StopExecution) on 127.0.0.1 for one state machine, executed by aws-local-stepfunctions.
// The Go package sfnlocal embeds this file, writes it to a temporary folder and runs it with
// the Node 22 of infra/local/node_modules; the first stdout line is the port it listens on.
// It answers only loopback Hosts on that port and no request carrying an Origin (refusal below).
//
// Lambda Task states are invoked here (as the library's Task overrides) through the AWS SDK's
// Lambda client, which sends them to AWS_ENDPOINT_URL_LAMBDA (the Go side's sfnlocal.Invoker).
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

const MAX_BODY_BYTES = 1 << 20;
const MAX_PAYLOAD_BYTES = 256 * 1024; // Step Functions' limit for input, state results and output
const MAX_EXECUTIONS = 1000;
const LAMBDA_FUNCTION_ARN = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9$_-]+)?$/;
// Characters AWS refuses in execution names (whitespace, brackets, wildcards, specials, controls).
const INVALID_NAME_CHAR = /[\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]/;

const { values: args } = parseArgs({
  options: {
    'local-dir': { type: 'string' },
    definition: { type: 'string' },
    'state-machine-arn': { type: 'string' },
    'status-change-function': { type: 'string', default: '' },
    port: { type: 'string', default: '0' },
  },
});

// The script lives in a temporary folder, so bare imports would not find infra/local/node_modules:
// load the library by path; its own imports then resolve next to it.
const libraryFile = path.join(args['local-dir'], 'node_modules/aws-local-stepfunctions/build/main.node.esm.js');
const { StateMachine, ExecutionAbortedError, ExecutionTimeoutError, ExecutionError } = await import(
  pathToFileURL(libraryFile).href
);
const { LambdaClient, InvokeCommand } = createRequire(libraryFile)('@aws-sdk/client-lambda');

const stateMachineArn = args['state-machine-arn']; // arn:aws:states:<region>:<account>:stateMachine:<name>
const [, , , REGION, ACCOUNT, , stateMachineName] = stateMachineArn.split(':');
const statusChangeFunction = args['status-change-function'];
// One client for every call, and no SDK retries: on AWS the state machine's Retry decides.
const lambda = new LambdaClient({ region: REGION, maxAttempts: 1 });
let machine, taskHandlers;
try {
  const definition = JSON.parse(readFileSync(args.definition, 'utf8'));
  machine = new StateMachine(definition); // validates the definition
  taskHandlers = lambdaTaskHandlers(definition);
} catch (err) {
  process.stderr.write(`sfnlocal: ${err.message}\n`);
  process.exit(1);
}

/** executionArn → execution record; insertion order is age, used for eviction. */
const executions = new Map();

function log(fields) {
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), component: 'sfnlocal', ...fields }) + '\n');
}

class ApiError extends Error {
  constructor(type, message, status = 400) {
    super(message);
    this.type = type;
    this.status = status;
  }
}

function taskError(name, cause) {
  const err = new Error(cause);
  err.name = name;
  return err;
}

// The library would invoke Lambda itself, but its error Cause is "Type: message" where AWS gives
// the function's error document ({"errorMessage":…,"errorType":…}), and it builds a new SDK client
// per Task. Overriding every Lambda Task (keyed by state name, the only key the library offers)
// keeps Cause identical to AWS, so an ASL that parses it behaves the same in both places.
function lambdaTaskHandlers(def) {
  const resources = {};
  const visit = (sub) => {
    for (const [name, state] of Object.entries(sub.States ?? {})) {
      if (state.Type === 'Task') {
        if (!LAMBDA_FUNCTION_ARN.test(state.Resource)) {
          throw new Error(`state ${name}: sfnlocal runs Task states whose Resource is a Lambda function ARN, not ${state.Resource}`);
        }
        if (resources[name] !== undefined && resources[name] !== state.Resource) {
          throw new Error(`two Task states are named ${name} with different resources; name them apart`);
        }
        resources[name] = state.Resource;
      }
      for (const nested of [state.Iterator, state.ItemProcessor, ...(state.Branches ?? [])]) {
        if (nested) visit(nested);
      }
    }
  };
  visit(def);
  return Object.fromEntries(Object.entries(resources).map(([name, arn]) => [name, (input) => invokeTask(arn, input)]));
}

async function invokeTask(functionArn, input) {
  let out;
  try {
    out = await lambda.send(new InvokeCommand({ FunctionName: functionArn, Payload: Buffer.from(JSON.stringify(input)) }));
  } catch (err) {
    // Named as on AWS: the Lambda API's exception, or SdkClientException when no answer came.
    throw taskError(`Lambda.${err.$metadata?.httpStatusCode ? err.name : 'SdkClientException'}`, err.message);
  }
  const text = out.Payload ? Buffer.from(out.Payload).toString('utf8') : '';
  if (out.FunctionError) {
    let type = 'Lambda.Unknown';
    try {
      type = JSON.parse(text).errorType || type;
    } catch {}
    throw taskError(type, text);
  }
  // AWS fails the state when a result exceeds the payload limit; keep that visible locally.
  if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) {
    throw taskError('States.DataLimitExceeded', `the result of ${functionArn} exceeds ${MAX_PAYLOAD_BYTES} bytes`);
  }
  return text === '' ? null : JSON.parse(text);
}

function describe(exec) {
  return {
    executionArn: exec.arn,
    stateMachineArn,
    name: exec.name,
    status: exec.status,
    startDate: exec.startDate / 1000,
    stopDate: exec.stopDate === undefined ? undefined : exec.stopDate / 1000,
    input: exec.input,
    inputDetails: { included: true },
    output: exec.output,
    outputDetails: exec.output === undefined ? undefined : { included: true },
    error: exec.error,
    cause: exec.cause,
  };
}

function makeRoom() {
  if (executions.size < MAX_EXECUTIONS) return;
  for (const [arn, exec] of executions) {
    if (exec.status !== 'RUNNING') {
      executions.delete(arn);
      return;
    }
  }
  throw new ApiError('ExecutionLimitExceeded', `sfnlocal keeps at most ${MAX_EXECUTIONS} running executions`);
}

/** Records the end state once; later calls (an abort racing the result) are ignored. */
function finish(exec, status, fields = {}) {
  if (exec.status !== 'RUNNING') return;
  Object.assign(exec, { status, stopDate: Date.now() }, fields);
  log({ msg: 'execution ended', executionArn: exec.arn, status, error: exec.error, durationMs: exec.stopDate - exec.startDate });
  if (statusChangeFunction && status !== 'SUCCEEDED') notifyStatusChange(exec);
}

function ending(err) {
  if (err instanceof ExecutionAbortedError) return ['ABORTED'];
  if (err instanceof ExecutionTimeoutError) return ['TIMED_OUT'];
  const cause = err instanceof ExecutionError ? err.cause : err;
  return ['FAILED', { error: cause?.name ?? 'Error', cause: cause?.message ?? String(err) }];
}

// On AWS an EventBridge rule delivers this event for FAILED, TIMED_OUT and ABORTED executions;
// EventBridge retries failed deliveries, so a few attempts here.
async function notifyStatusChange(exec) {
  const event = {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account: ACCOUNT,
    time: new Date(exec.stopDate).toISOString().replace(/\.\d+Z$/, 'Z'),
    region: REGION,
    resources: [exec.arn],
    detail: {
      executionArn: exec.arn,
      stateMachineArn,
      name: exec.name,
      status: exec.status,
      startDate: exec.startDate,
      stopDate: exec.stopDate,
      input: exec.input,
      output: null,
      error: exec.error ?? null,
      cause: exec.cause ?? null,
    },
  };
  const payload = Buffer.from(JSON.stringify(event));
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const out = await lambda.send(new InvokeCommand({ FunctionName: statusChangeFunction, Payload: payload }));
      if (!out.FunctionError) return;
      log({ msg: 'status-change function failed', executionArn: exec.arn, attempt, functionError: out.FunctionError });
    } catch (err) {
      log({ msg: 'status-change invoke failed', executionArn: exec.arn, attempt, error: err.name });
    }
    await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** (attempt - 1)));
  }
}

const operations = {
  StartExecution(req) {
    if (req.stateMachineArn !== stateMachineArn) {
      throw new ApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${req.stateMachineArn}'`);
    }
    const name = req.name ?? randomUUID();
    if (typeof name !== 'string' || name.length < 1 || name.length > 80 || INVALID_NAME_CHAR.test(name)) {
      throw new ApiError('InvalidName', `Invalid Name: '${name}'`);
    }
    const input = req.input ?? '{}';
    if (typeof input !== 'string' || Buffer.byteLength(input) > MAX_PAYLOAD_BYTES) {
      throw new ApiError('ValidationException', `input must be a string of at most ${MAX_PAYLOAD_BYTES} bytes`);
    }
    let parsed;
    try {
      parsed = JSON.parse(input);
    } catch (err) {
      throw new ApiError('InvalidExecutionInput', `Invalid State Machine Execution Input: '${err.message}'`);
    }
    const arn = `arn:aws:states:${REGION}:${ACCOUNT}:execution:${stateMachineName}:${name}`;
    const existing = executions.get(arn);
    if (existing) {
      // AWS: StartExecution is idempotent for a running execution started with the same input.
      if (existing.status === 'RUNNING' && existing.input === input) {
        return { executionArn: arn, startDate: existing.startDate / 1000 };
      }
      throw new ApiError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
    }
    makeRoom();
    const exec = { arn, name, input, status: 'RUNNING', startDate: Date.now() };
    executions.set(arn, exec);
    const run = machine.run(parsed, {
      overrides: { taskResourceLocalHandlers: taskHandlers },
      context: {
        Execution: { Id: arn, Name: name, StartTime: new Date(exec.startDate).toISOString() },
        StateMachine: { Id: stateMachineArn, Name: stateMachineName },
      },
    });
    exec.abort = run.abort;
    // The library queues every event (with payloads) until read; drain it so memory stays flat.
    (async () => {
      for await (const _ of run.eventLogs);
    })();
    run.result.then(
      (result) => {
        const output = JSON.stringify(result);
        if (Buffer.byteLength(output) <= MAX_PAYLOAD_BYTES) return finish(exec, 'SUCCEEDED', { output });
        finish(exec, 'FAILED', { error: 'States.DataLimitExceeded', cause: `the execution output exceeds ${MAX_PAYLOAD_BYTES} bytes` });
      },
      (err) => finish(exec, ...ending(err)),
    );
    log({ msg: 'execution started', executionArn: arn });
    return { executionArn: arn, startDate: exec.startDate / 1000 };
  },

  DescribeExecution(req) {
    const exec = executions.get(req.executionArn);
    if (!exec) throw new ApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${req.executionArn}'`);
    return describe(exec);
  },

  StopExecution(req) {
    const exec = executions.get(req.executionArn);
    if (!exec) throw new ApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${req.executionArn}'`);
    // Record ABORTED before aborting so a DescribeExecution right after sees it.
    finish(exec, 'ABORTED', { error: req.error, cause: req.cause });
    exec.abort?.();
    return { stopDate: exec.stopDate / 1000 };
  },
};

function reply(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': Buffer.byteLength(text),
    'x-amzn-RequestId': randomUUID(),
  });
  res.end(text);
}

function handle(req, body) {
  const target = req.headers['x-amz-target'] ?? '';
  const op = target.startsWith('AWSStepFunctions.') ? target.slice('AWSStepFunctions.'.length) : '';
  if (req.method !== 'POST' || !Object.hasOwn(operations, op)) {
    throw new ApiError('UnknownOperationException', `sfnlocal does not implement ${req.method} ${target || '(no X-Amz-Target)'}`);
  }
  let request;
  try {
    request = JSON.parse(body.length ? body.toString('utf8') : '{}');
  } catch {
    throw new ApiError('SerializationException', 'request body is not JSON');
  }
  return operations[op](request ?? {});
}

// The Go side's loopback.Host (infra/local/loopback), repeated: whether a Host header names this
// machine ("localhost" or a loopback IP literal) with our port when it carries one. A web page
// whose name was rebound to 127.0.0.1 (DNS rebinding) sends its own name, and is refused.
function loopbackHost(host, port) {
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*))(?::(\d+))?$/.exec(host ?? '');
  if (!m || (m[3] !== undefined && m[3] !== String(port))) return false;
  const name = (m[1] ?? m[2]).toLowerCase();
  if (name === 'localhost') return true;
  if (m[2] !== undefined) return isIPv4(name) && name.startsWith('127.');
  if (!isIPv6(name) || name.includes('%')) return false;
  const canonical = new URL(`http://[${name}]`).hostname; // [::1], or [::ffff:7f00:1] for ::ffff:127.0.0.1
  return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}

// Why a request is refused before anything is read or run (the Go side's loopback.Refusal): 421
// for a Host that is not loopback on our port, 403 for any Origin header, which only browsers send.
function refusal(req) {
  if (!loopbackHost(req.headers.host, server.address().port)) {
    return new ApiError('AccessDeniedException', `Misdirected request: sfnlocal answers only loopback hosts (127.0.0.1, localhost, [::1]) on its own port, not ${JSON.stringify(req.headers.host ?? '')}`, 421);
  }
  if (req.headers.origin !== undefined) {
    return new ApiError('AccessDeniedException', `Cross-origin request refused: sfnlocal answers programs, not web pages (Origin ${JSON.stringify(req.headers.origin)})`, 403);
  }
  return null;
}

const server = http.createServer((req, res) => {
  const refused = refusal(req);
  if (refused) {
    req.resume(); // the body is not read
    reply(res, refused.status, { __type: refused.type, message: refused.message });
    return;
  }
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    try {
      if (size > MAX_BODY_BYTES) throw new ApiError('ValidationException', `request body exceeds ${MAX_BODY_BYTES} bytes`, 413);
      reply(res, 200, handle(req, Buffer.concat(chunks)));
    } catch (err) {
      if (!(err instanceof ApiError)) log({ msg: 'request failed', error: String(err) });
      const apiErr = err instanceof ApiError ? err : new ApiError('InternalFailure', 'internal error', 500);
      reply(res, apiErr.status, { __type: apiErr.type, message: apiErr.message });
    }
  });
});
server.requestTimeout = 30_000;
// Outlast the SDK clients' idle connections, so a client never reuses one we just closed.
server.keepAliveTimeout = 120_000;

// Exit with the parent: the Go side holds our stdin open and it closes when the parent dies.
process.stdin.on('end', () => process.exit(0)).resume();
process.on('SIGTERM', () => process.exit(0));

// Port 0 picks a free one; a restarted runner asks for its predecessor's, so clients keep their endpoint.
server.listen(Number(args.port), '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
