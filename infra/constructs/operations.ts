import { Duration, Names, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  CfnInsightRule,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ServiceAlarms } from './alarms.ts';
import type { McpKeyAuthorizer } from './mcp-key-authorizer.ts';

export interface ServiceOperationsProps {
  api: HttpApi;
  /** The reference MCP endpoint's REST API. */
  mcpApi: RestApi;
  keyAuthorizer: McpKeyAuthorizer;
  /** The request-path functions, whose throttles one alarm sums (a metric math alarm takes at most 10). */
  functions: IFunction[];
  /** The leak report functions (the public report and GitHub's), whose throttles have an alarm of their own. */
  leakFunctions: IFunction[];
  keysTable: ITableV2;
  alarms: ServiceAlarms;
}

const MINUTE = Duration.minutes(1);

/**
 * The service-wide alarms (the 5xx rates of the management API and the MCP endpoint, key
 * authorizer failures, Lambda throttles, DynamoDB system errors), each with its runbook entry in
 * docs/operations.md, and the dashboard.
 */
export class ServiceOperations extends Construct {
  constructor(scope: Construct, id: string, props: ServiceOperationsProps) {
    super(scope, id);
    const { api, mcpApi, keyAuthorizer, functions, leakFunctions, keysTable, alarms } = props;
    const management = rateAlarm(
      alarms,
      'Api5xxRate',
      'More than 1% of management API requests answered 5xx.',
      api,
    );
    const mcp = rateAlarm(
      alarms,
      'McpEndpoint5xxRate',
      'More than 1% of MCP endpoint requests answered 5xx.',
      mcpApi,
    );
    const authorizerErrors = authorizerFailureAlarm(alarms, keyAuthorizer);
    const throttles = throttleAlarm(
      alarms,
      'LambdaThrottles',
      'A function of the service was throttled.',
      functions,
    );
    const leakThrottles = throttleAlarm(
      alarms,
      'LeakReportThrottles',
      'A leak report function (the public report or GitHub secret scanning) was throttled.',
      leakFunctions,
    );
    const systemErrors = systemErrorAlarm(alarms, keysTable);
    const runaway = runawayCredentialAlarm(this, alarms, keyAuthorizer);
    new Dashboard(this, 'Dashboard', {
      dashboardName: 'svc-mcp-api-keys',
      widgets: [
        [
          new GraphWidget({
            title: 'API requests and 5xx',
            left: [management.requests, management.errors],
            right: [management.rate],
          }),
          new GraphWidget({
            title: 'API latency (p99)',
            left: [api.metricLatency({ period: MINUTE, statistic: 'p99' })],
          }),
          new GraphWidget({
            title: 'MCP endpoint requests and 5xx',
            left: [mcp.requests, mcp.errors],
            right: [mcp.rate],
          }),
        ],
        [
          new GraphWidget({
            title: 'Key authorizer',
            left: [keyAuthorizer.handler.metricInvocations({ period: MINUTE }), authorizerErrors],
            right: [keyAuthorizer.handler.metricDuration({ period: MINUTE, statistic: 'p99' })],
          }),
          new GraphWidget({
            title: 'Throttles and DynamoDB system errors',
            left: [throttles, leakThrottles, systemErrors],
          }),
        ],
      ],
    });
  }
}

/** An API's requests, 5xx answers and their rate, alarmed on when over 1% in 3 of 5 minutes. */
function rateAlarm(alarms: ServiceAlarms, alarmId: string, description: string, of: HttpApi | RestApi) {
  const requests = of.metricCount({ period: MINUTE });
  const errors = of.metricServerError({ period: MINUTE });
  const rate = fiveXxRate(requests, errors);
  alarms.add(alarmId, {
    description,
    metric: rate,
    threshold: 1,
    evaluationPeriods: 5,
    datapointsToAlarm: 3,
  });
  return { requests, errors, rate };
}

/**
 * The key authorizer's failures. On a REST API the authorizer throws on a failed verification (and
 * on every Unauthorized, counted apart); reused on an HTTP API it denies and counts outcome=error
 * instead. The larger of the two is the failures, whichever way it is attached.
 */
function authorizerFailureAlarm(alarms: ServiceAlarms, keyAuthorizer: McpKeyAuthorizer): MathExpression {
  const authorizerErrors = new MathExpression({
    expression: 'MAX([thrown, caught])',
    usingMetrics: {
      thrown: keyAuthorizer.metricFailures({ period: MINUTE }),
      caught: ServiceAlarms.serviceCount('AuthorizerDecisions', {
        period: MINUTE,
        dimensions: { outcome: 'error' },
      }),
    },
    period: MINUTE,
    label: 'Key authorizer failures',
  });
  alarms.add('KeyAuthorizerErrors', {
    description: 'The key authorizer failed to verify keys (it refuses on failure, so MCP callers get 503).',
    metric: authorizerErrors,
    threshold: 0,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
  });
  return authorizerErrors;
}

/** Functions' throttles, summed (a metric math alarm takes at most 10 metrics). */
function throttleAlarm(
  alarms: ServiceAlarms,
  id: string,
  description: string,
  fns: IFunction[],
): MathExpression {
  if (fns.length > 10)
    throw new Error(`${id}: a metric math alarm sums at most 10 functions, not ${fns.length}`);
  const throttleMetrics: Record<string, IMetric> = {};
  fns.forEach((fn, i) => {
    // Ids unique across the dashboard's graph, which shows both sums.
    throttleMetrics[`${id === 'LambdaThrottles' ? 'f' : 'l'}${i}`] = fn.metricThrottles({ period: MINUTE });
  });
  const throttles = new MathExpression({
    expression: Object.keys(throttleMetrics).join(' + '),
    usingMetrics: throttleMetrics,
    period: MINUTE,
    label: id === 'LambdaThrottles' ? 'Lambda throttles' : 'Leak report throttles',
  });
  alarms.add(id, {
    description,
    metric: throttles,
    threshold: 0,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
  });
  return throttles;
}

/** Calls over its limits (contract §19) one credential makes in a minute before the alarm: 5 a second. */
export const RUNAWAY_REFUSALS_PER_MINUTE = 300;

/**
 * A credential refused for its limits more than RUNAWAY_REFUSALS_PER_MINUTE times a minute in 3
 * of 5 minutes: a client in a loop, or a leaked key in use. A Contributor Insights rule over the
 * key authorizer's decision lines counts the `rate_limited` ones per credential; the alarm watches
 * the top contributor, whose id the rule's report names.
 */
function runawayCredentialAlarm(
  scope: Construct,
  alarms: ServiceAlarms,
  keyAuthorizer: McpKeyAuthorizer,
): IMetric {
  const logGroup = (keyAuthorizer.handler as LambdaFunction).logGroup;
  const rule = new CfnInsightRule(scope, 'RateLimitedCredentials', {
    ruleName: `${Names.uniqueResourceName(scope, { maxLength: 100 })}-rate-limited`,
    ruleState: 'ENABLED',
    ruleBody: Stack.of(scope).toJsonString({
      Schema: { Name: 'CloudWatchLogRule', Version: 1 },
      LogGroupNames: [logGroup.logGroupName],
      LogFormat: 'JSON',
      Contribution: {
        Keys: ['$.key_id'],
        Filters: [
          { Match: '$.message', In: ['mcp key decision'] },
          { Match: '$.outcome', In: ['rate_limited'] },
        ],
      },
      AggregateOn: 'Count',
    }),
  });
  const top = new MathExpression({
    expression: `INSIGHT_RULE_METRIC('${rule.attrRuleName}', 'MaxContributorValue')`,
    usingMetrics: {},
    period: MINUTE,
    label: 'Calls over a limit, the most by one credential',
  });
  alarms.add('RunawayCredential', {
    description: `A credential was refused for its limits more than ${RUNAWAY_REFUSALS_PER_MINUTE} times a minute: a client in a loop, or a leaked key in use.`,
    metric: top,
    threshold: RUNAWAY_REFUSALS_PER_MINUTE,
    evaluationPeriods: 5,
    datapointsToAlarm: 3,
  });
  return top;
}

/** DynamoDB's system errors on the keys table. */
function systemErrorAlarm(alarms: ServiceAlarms, keysTable: ITableV2): IMetric {
  const systemErrors = keysTable.metric('SystemErrors', { statistic: 'Sum', period: MINUTE });
  alarms.add('KeysTableSystemErrors', {
    description: 'DynamoDB reported system errors on the keys table.',
    metric: systemErrors,
    threshold: 0,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
  });
  return systemErrors;
}

/** The share of requests answered 5xx, in percent (0 when there were none). */
export function fiveXxRate(requests: IMetric, errors: IMetric): MathExpression {
  return new MathExpression({
    expression: 'IF(requests > 0, 100 * errors / requests, 0)',
    usingMetrics: { requests, errors },
    period: Duration.minutes(1),
    label: '5xx rate (%)',
  });
}
