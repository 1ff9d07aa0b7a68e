"""The browser code's tests: the Node tests here, and the Python tests that run or check them."""
