import sys

from figures.runner import main

sys.exit(main())
