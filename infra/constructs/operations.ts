import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Dashboard, GraphWidget, type IMetric, MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
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
  keysTable: ITableV2;
  alarms: ServiceAlarms;
}

/**
 * The service-wide alarms (the 5xx rates of the management API and the MCP endpoint, key
 * authorizer failures, Lambda throttles, DynamoDB system errors), each with its runbook entry in
 * docs/operations.md, and the dashboard.
 */
export class ServiceOperations extends Construct {
  constructor(scope: Construct, id: string, props: ServiceOperationsProps) {
    super(scope, id);
    const { api, mcpApi, keyAuthorizer, functions: fns, keysTable, alarms } = props;
    const minute = Duration.minutes(1);
    // Each API's own 5xx rate: over 1% in 3 of 5 minutes.
    const rateAlarm = (alarmId: string, description: string, of: HttpApi | RestApi) => {
      const requests = of.metricCount({ period: minute });
      const errors = of.metricServerError({ period: minute });
      const rate = fiveXxRate(requests, errors);
      alarms.add(alarmId, {
        description,
        metric: rate,
        threshold: 1,
        evaluationPeriods: 5,
        datapointsToAlarm: 3,
      });
      return { requests, errors, rate };
    };
    const management = rateAlarm('Api5xxRate', 'More than 1% of management API requests answered 5xx.', api);
    const mcp = rateAlarm(
      'McpEndpoint5xxRate',
      'More than 1% of MCP endpoint requests answered 5xx.',
      mcpApi,
    );
    // On a REST API the authorizer throws on a failed verification (and on every Unauthorized,
    // counted apart); reused on an HTTP API it denies and counts outcome=error instead. The larger
    // of the two is the failures, whichever way it is attached.
    const authorizerErrors = new MathExpression({
      expression: 'MAX([thrown, caught])',
      usingMetrics: {
        thrown: keyAuthorizer.metricFailures({ period: minute }),
        caught: ServiceAlarms.serviceCount('AuthorizerDecisions', {
          period: minute,
          dimensions: { outcome: 'error' },
        }),
      },
      period: minute,
      label: 'Key authorizer failures',
    });
    alarms.add('KeyAuthorizerErrors', {
      description:
        'The key authorizer failed to verify keys (it refuses on failure, so MCP callers get 503).',
      metric: authorizerErrors,
      threshold: 0,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });
    const throttleMetrics: Record<string, IMetric> = {};
    fns.forEach((fn, i) => {
      throttleMetrics[`f${i}`] = fn.metricThrottles({ period: minute });
    });
    const throttles = new MathExpression({
      expression: Object.keys(throttleMetrics).join(' + '),
      usingMetrics: throttleMetrics,
      period: minute,
      label: 'Lambda throttles',
    });
    alarms.add('LambdaThrottles', {
      description: 'A function of the service was throttled.',
      metric: throttles,
      threshold: 0,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });
    const systemErrors = keysTable.metric('SystemErrors', { statistic: 'Sum', period: minute });
    alarms.add('KeysTableSystemErrors', {
      description: 'DynamoDB reported system errors on the keys table.',
      metric: systemErrors,
      threshold: 0,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });
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
            left: [api.metricLatency({ period: minute, statistic: 'p99' })],
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
            left: [keyAuthorizer.handler.metricInvocations({ period: minute }), authorizerErrors],
            right: [keyAuthorizer.handler.metricDuration({ period: minute, statistic: 'p99' })],
          }),
          new GraphWidget({ title: 'Throttles and DynamoDB system errors', left: [throttles, systemErrors] }),
        ],
      ],
    });
  }
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
