import sys

from verify.runner import main

sys.exit(main())
