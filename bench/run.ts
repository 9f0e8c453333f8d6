console.log('benchmarks: not yet (see the performance issue)');
