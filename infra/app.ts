console.log('CDK app: not yet');
