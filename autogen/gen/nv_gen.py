def generate(upstream): return {}, []
