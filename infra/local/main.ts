console.log('local service: not yet');
