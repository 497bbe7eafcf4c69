await import('@raf/framework');
